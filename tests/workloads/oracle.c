// SPDX-License-Identifier: GPL-2.0-only
/* Workload for the strace oracle: a real multi-threaded program with signal
 * handlers, forks and execs, run under strace -f inside a katra-record
 * capture so both count the same syscalls per thread (t_oracle.sh).
 *
 * usage: oracle [ROUNDS]   (default 50) */
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "workload.h"

static volatile sig_atomic_t got_signals;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int turn;

static void on_usr1(int sig)
{
	(void)sig;
	got_signals++;
	/* a syscall inside the handler, then rt_sigreturn */
	syscall(SYS_getppid);
}

/* Two threads hand a token back and forth: futex waits and wakes. */
static void *pingpong(void *arg)
{
	int me = (int)(intptr_t)arg, rounds = 200;

	for (int i = 0; i < rounds; i++) {
		pthread_mutex_lock(&lock);
		while (turn != me)
			pthread_cond_wait(&cond, &lock);
		turn = !me;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

/* A thread doing file I/O and taking signals. */
static void *reader(void *arg)
{
	int rounds = (int)(intptr_t)arg;
	char buf[64];
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	for (int i = 0; i < rounds; i++) {
		if (read(fd, buf, sizeof(buf)) < 0 || pread(fd, buf, 8, i) < 0)
			break;
		if (i % 10 == 0)
			syscall(SYS_tgkill, getpid(), wl_gettid(), SIGUSR1);
	}
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 50;
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t t[3];

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	pthread_create(&t[0], NULL, pingpong, (void *)(intptr_t)0);
	pthread_create(&t[1], NULL, pingpong, (void *)(intptr_t)1);
	pthread_create(&t[2], NULL, reader, (void *)(intptr_t)rounds);
	for (int i = 0; i < 5; i++) {
		/* fork + exec, the way a launcher runs its helpers */
		pid_t pid = fork();
		if (pid == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		struct timespec ts = { 0, 200000 };
		nanosleep(&ts, NULL);
	}
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("{\"workload\":\"oracle\",\"pid\":%d,\"rounds\":%d,\"signals\":%d}\n", getpid(),
	       rounds, (int)got_signals);
	return 0;
}
