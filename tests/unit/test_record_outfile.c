// SPDX-License-Identifier: GPL-2.0-only
/* The capture's output files (user/record/outfile.c). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/outfile.h"

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/katra-outfile.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

static void expect_text(const char *path, const char *text)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	cr_assert_not_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	cr_assert_str_eq(buf, text, "%s", path);
}

static size_t entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

TestSuite(outfile, .init = make_dir, .fini = remove_dir);

Test(outfile, created_0600_and_never_over_an_existing_name)
{
	char path[128], link[128];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/t.ktrc", dir);
	cr_assert_eq(katra_outfile_create(path, false, &fd), 0);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
	close(fd);
	cr_assert_eq(katra_outfile_create(path, false, &fd), -EEXIST);
	cr_assert_eq(fd, -1);
	/* a dangling symlink is a name that exists: nothing made at its target */
	snprintf(link, sizeof(link), "%s/link", dir);
	cr_assert_eq(symlink("/tmp/katra-outfile-nowhere", link), 0);
	cr_assert_eq(katra_outfile_create(link, false, &fd), -EEXIST);
	cr_assert_eq(access("/tmp/katra-outfile-nowhere", F_OK), -1);
}

Test(outfile, replace_renames_a_new_file_over_the_old_name)
{
	char path[128], other[128];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/t.ktrc", dir);
	snprintf(other, sizeof(other), "%s/other-link", dir);
	put(other, "victim\n");
	cr_assert_eq(link(other, path), 0);
	cr_assert_eq(katra_outfile_create(path, true, &fd), 0);
	cr_assert_eq(write(fd, "new\n", 4), 4);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
	cr_assert_eq(st.st_nlink, 1, "a new file, not the old one's inode");
	close(fd);
	expect_text(path, "new\n");
	expect_text(other, "victim\n");
	cr_assert_eq(entries(), 2, "no temporary file left");
}
