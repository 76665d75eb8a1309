import numpy as np, time, randtensor, statistics, sys
n=10_000_000
out=np.empty(n,dtype=np.float32)
gens={"rt":np.random.Generator(randtensor.Philox4x32(1)),"pcg":np.random.Generator(np.random.PCG64(1))}
t={k:[] for k in gens}; u={k:[] for k in gens}
for r in range(15):
    for k,g in gens.items():
        s=time.perf_counter(); g.random(n,dtype=np.float32); t[k].append((time.perf_counter()-s)/n*1e9)
        s=time.perf_counter(); g.random(dtype=np.float32,out=out); u[k].append((time.perf_counter()-s)/n*1e9)
for k in t: print(k, "alloc %.3f [%.3f-%.3f]"%(statistics.median(t[k]),min(t[k]),max(t[k])), "prealloc %.3f [%.3f-%.3f]"%(statistics.median(u[k]),min(u[k]),max(u[k])))
