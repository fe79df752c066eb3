/* Wait until FILE has no page dirty or under writeback (cachestat(2)), at most SECS s. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>

struct range { __u64 off, len; };
struct stat_ { __u64 cache, dirty, writeback, evicted, recently_evicted; };

int main(int argc, char **argv)
{
	struct range r = { 0, 0 };
	struct stat_ cs;
	struct timespec t0, t;
	double secs = 0;
	int fd = open(argv[1], O_RDONLY);

	if (fd < 0)
		return perror("open"), 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (syscall(451, fd, &r, &cs, 0))
			return perror("cachestat"), 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
		secs = t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9;
		if (!cs.dirty && !cs.writeback)
			break;
		if (secs > atof(argv[2])) {
			printf("timeout %.3f dirty %llu writeback %llu\n", secs,
			       (unsigned long long)cs.dirty, (unsigned long long)cs.writeback);
			return 2;
		}
		usleep(10000);
	}
	printf("clean %.3f\n", secs);
	return 0;
}
