/* The sync(2) test held out of the series (see README.md): it needs the
 * fixture's stream_path/stream_fd members and NR_STREAMS (4). */
#define STREAM_START	MiB(16)	/* each writer's file before sync() */
#define STREAM_MAX	MiB(192) /* a writer stops there at the latest */
#define STREAM_CAP	90	/* ... or after this many seconds */

struct stream_ctl {
	atomic_bool stop;
	atomic_int started;	/* writers past STREAM_START */
	atomic_int running;	/* writers not stopped yet */
	time_t deadline;
};

struct streamer {
	pthread_t thread;
	struct stream_ctl *ctl;
	int fd;
	int id;
	int err;
	atomic_long written;	/* bytes appended so far, all in 1 MiB writes */
	bool capped;		/* stopped by STREAM_MAX or STREAM_CAP, not by the test */
};

/*
 * Appends 1 MiB RWF_DONTCACHE writes of the pattern (seed 50 + id) to the
 * file until told to stop: never a page written twice, so that what was
 * dirty when sync() began is known.
 */
static void *streamer_main(void *arg)
{
	struct streamer *s = arg;
	struct stream_ctl *ctl = s->ctl;
	char *data = malloc(MiB(1));
	bool started = false;
	off_t off = 0;

	s->err = data ? 0 : -ENOMEM;
	while (!s->err && !atomic_load(&ctl->stop)) {
		struct iovec iov = { .iov_base = data, .iov_len = MiB(1) };
		ssize_t wrote;

		if (off >= (off_t)STREAM_MAX || time(NULL) >= ctl->deadline) {
			s->capped = true;
			break;
		}
		fill_pattern(data, MiB(1), 50 + s->id, off);
		wrote = pwritev2(s->fd, &iov, 1, off, RWF_DONTCACHE);
		if (wrote != (ssize_t)MiB(1)) {
			s->err = wrote < 0 ? -errno : -EIO;
			break;
		}
		off += MiB(1);
		atomic_store(&s->written, off);
		if (!started && off >= (off_t)STREAM_START) {
			started = true;
			atomic_fetch_add(&ctl->started, 1);
		}
	}
	/* A writer that failed early counts too: the test must not wait for it. */
	if (!started)
		atomic_fetch_add(&ctl->started, 1);
	atomic_fetch_sub(&ctl->running, 1);
	free(data);
	return NULL;
}

/*
 * sync(2) while dontcache streams run: four writers append 1 MiB
 * RWF_DONTCACHE writes to their own file.  Once each has written 16 MiB,
 * the test notes how much each has written and calls sync(); when it
 * returns, none of what was written before it began may be dirty or under
 * writeback (cachestat), and the writers must all still be running: a
 * sync() that the streams livelock returns only once they stop, by their
 * cap of 192 MiB or 90 s.  Fails if sync() returns before writing back
 * what was dirty when it began, or only after the writers stopped.  After
 * the writers stop and a final fsync() of each file, the data read back
 * from the disk must be what was written.
 */
TEST_F_TIMEOUT(dontcache, sync_during_dontcache_streams_returns_and_leaves_older_data_clean, 300)
{
	struct stream_ctl ctl = { .deadline = time(NULL) + STREAM_CAP };
	struct streamer w[NR_STREAMS];
	long before[NR_STREAMS], unwritten[NR_STREAMS];
	struct timespec t0, t1;
	int i, running;
	long ms;

	atomic_store(&ctl.running, NR_STREAMS);
	for (i = 0; i < NR_STREAMS; i++) {
		snprintf(self->stream_path[i], sizeof(self->stream_path[i]), "%s.%d",
			 self->path, i);
		self->stream_fd[i] = open(self->stream_path[i], O_RDWR | O_CREAT | O_TRUNC,
					  0600);
		ASSERT_GE(self->stream_fd[i], 0)
			TH_LOG("open %s: %s", self->stream_path[i], strerror(errno));
	}
	for (i = 0; i < NR_STREAMS; i++) {
		w[i] = (struct streamer) { .ctl = &ctl, .fd = self->stream_fd[i], .id = i };
		ASSERT_EQ(0, pthread_create(&w[i].thread, NULL, streamer_main, &w[i]));
	}
	while (atomic_load(&ctl.started) < NR_STREAMS)
		usleep(10000);

	for (i = 0; i < NR_STREAMS; i++)
		before[i] = atomic_load(&w[i].written);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sync();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	running = atomic_load(&ctl.running);
	for (i = 0; i < NR_STREAMS; i++)
		unwritten[i] = unwritten_pages(self->stream_fd[i], 0, before[i]);
	atomic_store(&ctl.stop, true);
	for (i = 0; i < NR_STREAMS; i++)
		pthread_join(w[i].thread, NULL);

	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	TH_LOG("sync() took %ld ms; %d of %d writers still running when it returned",
	       ms, running, NR_STREAMS);
	for (i = 0; i < NR_STREAMS; i++) {
		TH_LOG("writer %d: %ld MiB before sync(), %ld MiB in all, %ld pages of the first still unwritten after it%s",
		       i, before[i] >> 20, atomic_load(&w[i].written) >> 20, unwritten[i],
		       w[i].capped ? ", stopped by the cap" : "");
		EXPECT_EQ(0, w[i].err) TH_LOG("writer %d: %s", i, strerror(-w[i].err));
		EXPECT_EQ(0, unwritten[i]);
	}
	EXPECT_EQ(NR_STREAMS, running) TH_LOG("sync() returned only once writers had stopped");
	for (i = 0; i < NR_STREAMS; i++)
		EXPECT_EQ(0, fsync(self->stream_fd[i]));
	ASSERT_EQ(0, drop_page_cache());
	for (i = 0; i < NR_STREAMS; i++)
		EXPECT_EQ(-1, check_pattern(self->stream_fd[i], 0, atomic_load(&w[i].written),
					    50 + i))
			TH_LOG("file %d does not read back what was written", i);
}

