// RANDTENSOR_API marks the functions the library exports. The library is
// built with hidden visibility, so nothing else leaks from librandtensor.so
// into the symbol space of the process that loads it (PyTorch, say).
#ifndef RANDTENSOR_EXPORT_H_
#define RANDTENSOR_EXPORT_H_

#if defined(_WIN32)
#if defined(RANDTENSOR_BUILDING_SHARED)
#define RANDTENSOR_API __declspec(dllexport)
#elif defined(RANDTENSOR_SHARED)
#define RANDTENSOR_API __declspec(dllimport)
#else
#define RANDTENSOR_API
#endif
#else
#define RANDTENSOR_API __attribute__((visibility("default")))
#endif

#endif  // RANDTENSOR_EXPORT_H_
