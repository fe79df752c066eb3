/* Create N files of one dirty 4 KiB page each under DIR (plain buffered writes). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	static char page[4096];
	long i, n = atol(argv[2]);
	char path[4096];

	memset(page, 0x33, sizeof(page));
	for (i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/f%06ld", argv[1], i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd < 0 || write(fd, page, sizeof(page)) != sizeof(page))
			return perror(path), 1;
		close(fd);
	}
	return 0;
}
