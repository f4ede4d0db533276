// SPDX-License-Identifier: GPL-2.0-only
/* runstat OUT CMD ARGS...: runs CMD as its child, forwards SIGINT/SIGTERM to
 * it, and when it exits writes "{utime_ns, stime_ns, maxrss_kib, status}" to
 * OUT.  The tracer is forked from this small process, not from the Python
 * driver, so its peak RSS (VmHWM, ru_maxrss) is its own. */
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int main(int argc, char **argv)
{
	struct rusage ru;
	int status = 0;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: runstat OUT CMD ARGS...\n");
		return 2;
	}
	signal(SIGINT, forward);
	signal(SIGTERM, forward);
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[2], argv + 2);
		perror("runstat: exec");
		_exit(127);
	}
	while (wait4(child, &status, 0, &ru) < 0)
		;
	f = fopen(argv[1], "w");
	if (!f)
		return 1;
	fprintf(f, "{\"utime_ns\":%lld,\"stime_ns\":%lld,\"maxrss_kib\":%ld,\"status\":%d}\n",
		(long long)ru.ru_utime.tv_sec * 1000000000ll + ru.ru_utime.tv_usec * 1000ll,
		(long long)ru.ru_stime.tv_sec * 1000000000ll + ru.ru_stime.tv_usec * 1000ll,
		ru.ru_maxrss, status);
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
