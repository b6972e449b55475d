#!/usr/bin/env bash
# One device session's checks (see README, "GPU"): CUDA agreement tests, then the two
# benchmarks on CUDA (each prints its time ratio and the fraction of its exponential
# bound).  Usage on a GPU machine, from the repository root:
#   OUT=/some/dir bash bench/device_check.sh
# Uses the machine's own torch (no install); python-flint is not needed for these.
# -o addopts="": the repository's addopts name an xdist option, and the machine may lack pytest-xdist.
set -u
export PYTHONUNBUFFERED=1 PYTHONPATH=.
OUT=${OUT:-/tmp/device_out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/gpu.txt"
python3 -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name())" | tee -a "$OUT/gpu.txt"
timeout 150 python3 -m pytest -o addopts="" -m gpu tests/test_gpu.py -q -p no:cacheprovider 2>&1 | tee "$OUT/test_gpu.log"
timeout 200 python3 bench/bench_network.py --device cuda --repeat 3 --big-m 1000 --json "$OUT/bench_network_cuda.json" 2>&1 | tee "$OUT/bench_network_cuda.log"
# both input sets (fuzz, moderate); each prints its ratios and the fraction of its exponential bound
timeout 200 python3 bench/bench_bvn.py --n 4000000 --repeat 2 --scipy-n 100 --ref-n 40 2>&1 | tee "$OUT/bench_bvn_cuda.log"
# the workload sets (issue 24): Fig. 3(a)'s own Phi2 arguments at W_0 for the smallest, a middle and the
# largest kappa, all ~2.48e6 pairs each, in the pass's mode (relative=False, atol=2^-60)
timeout 200 python3 bench/bench_bvn.py --sets w0k0.05,w0k0.2,w0k2 --n 2500000 --repeat 2 --scipy-n 100 --ref-n 40 2>&1 | tee "$OUT/bench_bvn_workload_cuda.log"
# training (issue 5): masked GD and FedAvg agreement on CUDA, then the large sweep
timeout 120 python3 -m pytest -o addopts="" -m gpu tests/masking/test_fedavg.py -q -p no:cacheprovider 2>&1 | tee "$OUT/test_fedavg_gpu.log"
timeout 240 python3 bench/gpu_training.py --json "$OUT/gpu_training.json" 2>&1 | tee "$OUT/gpu_training.log"
timeout 120 python3 bench/gpu_training.py --dtype float64 --seeds 4 --json "$OUT/gpu_training_f64.json" 2>&1 | tee "$OUT/gpu_training_f64.log"
