# Rate-limited dontcache writeback and NFSD stable_how floors for Linux v7.3:
# the patch series and the harness that builds, boots and proves it.
# Every target is one script under scripts/; 'make help' lists them.

SHELL := /bin/bash
S := scripts
# Every step of this make run, prerequisites included, logs its time here (lib.sh step).
export MAKE_START := $(shell date +%s)
export STEP_LOG := $(CURDIR)/out/steps/$(MAKE_START).txt

.PHONY: all plan-short plan-full plan-determ-all help deps tree kernel kernel-bench rootfs export check check-crash check-negative numbers bench bench-full bench-determ bench-determ-mixed bench-determ-submit bench-determ-many vmm-root demo clean-out

all: plan-short kernel-bench rootfs ## the main job: short interleaved stock vs patched benchmark, results/<date-time>-short/report.md
	@$(S)/bench.sh short

# make and make bench print their time estimate first, the builds still to do included.
plan-short plan-full plan-determ-all:
	@$(S)/bench.sh --plan $(@:plan-%=%)

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 16

deps: ## install host packages from Debian (idempotent; needs root)
	@$(S)/deps.sh

tree: deps ## kernel tree: Debian's linux-source-7.3 (or KERNEL_SRC) + patches/ on a branch
	@$(S)/tree.sh

kernel: tree ## build the patched kernel of make check (lockdep; out of tree, ccache)
	@$(S)/kernel.sh patched

kernel-bench: tree ## build the two bench kernels: stock v7.3.4 and patched, same config, no debug options
	@$(S)/kernel.sh bench-stock
	@$(S)/kernel.sh bench-patched

rootfs: deps ## debootstrap the Debian trixie guest root, build nfs-utils/ (exportfs, rpc.mountd) into it (cached)
	@$(S)/rootfs.sh
	@$(S)/nfs-utils.sh

export: ## regenerate patches/ from the series branch of the kernel tree
	@$(S)/export.sh

check: kernel rootfs ## checkpatch, git am, bisect build, W=1/sparse, rst, kselftests and crash test in the VM
	@$(S)/check.sh

numbers: ## every quoted "median [min-max]" figure is in the rebuilt report of the run it names
	@python3 $(S)/check-numbers.py

check-crash: kernel rootfs ## only the crash-durability test (CRASH_ITERS=20 power-offs)
	@CHECK_OUT=$(CURDIR)/out/check-crash $(S)/check-crash.sh

check-negative: tree rootfs ## the kselftests on stock v7.3.4 (make check's config): every policy test must fail there (not part of check)
	@$(S)/kernel.sh stock
	@$(S)/check-negative.sh

bench: plan-determ-all kernel-bench rootfs vmm-root ## the decisions: the deterministic profile and its second half in one boot (determ-all), stock vs patched, 5 repetitions, the two kernels side by side (prints its time estimate first)
	@$(S)/bench.sh determ-all

bench-full: plan-full kernel-bench rootfs ## the wall-clock full matrix, stock and patched interleaved, 5 repetitions: the realistic view, and the NFSD counts (P4, P5) and Jan Kara's case (P7)
	@$(S)/bench.sh full

vmm-root: deps ## debootstrap a second trixie root holding QEMU 10, for the deterministic profile (cached)
	@$(S)/vmm-root.sh

bench-determ: kernel-bench rootfs vmm-root ## the deterministic profile, stock vs patched, 5 repetitions: guest time in guest instructions, null_blk disks; decides P0, P2, P6 (BENCH_BASE=same: identical code)
	@$(S)/bench.sh determ

bench-determ-mixed: kernel-bench rootfs vmm-root ## the deterministic profile's second half, stock vs patched, 5 repetitions: a buffered writer and random readers beside a dontcache writer; decides P3, P8
	@$(S)/bench.sh determ-mixed

bench-determ-submit: kernel-bench rootfs vmm-root ## the deterministic profile, the series against itself with writers that never submit (patches 4-7 off: config/variants/scoped.diff), 5 repetitions
	@$(S)/kernel.sh variant scoped
	@BENCH_BASE=scoped $(S)/bench.sh determ-submit

bench-determ-many: kernel-bench rootfs vmm-root ## the deterministic profile, one dontcache stream beside 100000 dirty inodes: v7.3.4, the series with writers that never submit (patch 2's pass alone: config/variants/scoped.diff) and the series, 5 repetitions
	@$(S)/kernel.sh variant scoped
	@BENCH_BASE=stock,scoped $(S)/bench.sh determ-many

demo: kernel rootfs ## boot the patched kernel, print uname -r and the NFSD io_cache knobs
	@$(S)/demo.sh

clean-out: ## remove out/ (caches under /var/cache/dontcache-series stay)
	rm -rf out
