import numpy as np, time, randtensor, statistics, sys
threads=int(sys.argv[1]); randtensor.set_default_threads(threads)
n=10_000_000
bg=randtensor.Philox4x32(1); ph=np.random.Philox(1)
res={"randtensor random_raw":[], "np.empty+touch":[], "randtensor.fill prealloc":[], "numpy Philox random_raw":[]}
a=np.empty(n,dtype=np.uint32); randtensor.fill(a, seed=1, threads=threads)
for r in range(9):
    s=time.perf_counter(); bg.random_raw(n); res["randtensor random_raw"].append(time.perf_counter()-s)
    s=time.perf_counter(); b=np.empty(n,dtype=np.uint32); b[::1024]=0; res["np.empty+touch"].append(time.perf_counter()-s); del b
    s=time.perf_counter(); randtensor.fill(a, seed=1, threads=threads); res["randtensor.fill prealloc"].append(time.perf_counter()-s)
    s=time.perf_counter(); ph.random_raw(n); res["numpy Philox random_raw"].append(time.perf_counter()-s)
print("threads", threads, "n", n)
for k,v in res.items(): print("%-26s %.2f ms [%.2f-%.2f]"%(k, statistics.median(v)*1e3, min(v)*1e3, max(v)*1e3))
