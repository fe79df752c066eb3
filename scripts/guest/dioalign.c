// SPDX-License-Identifier: GPL-2.0
/*
 * dioalign FILE: print "dio_mem_align,dio_offset_align" of FILE from
 * statx(STATX_DIOALIGN), or "-,-" if its filesystem reports none.
 * Built and run in the guest by bench.sh (xfs_io's statx does not show them).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	struct statx stx;

	if (argc != 2 || statx(AT_FDCWD, argv[1], 0, STATX_DIOALIGN, &stx)) {
		perror("statx");
		return 1;
	}
	if (!(stx.stx_mask & STATX_DIOALIGN))
		puts("-,-");
	else
		printf("%u,%u\n", stx.stx_dio_mem_align, stx.stx_dio_offset_align);
	return 0;
}
