// SPDX-License-Identifier: GPL-2.0-only
/* Formatting shared by the stats views (see views.h). */
#include <stdio.h>
#include <string.h>

#include "katra/replay.h"
#include "replay/util/out.h"
#include "replay/names/resnames.h"
#include "replay/names/sysnames.h"
#include "views.h"

const char *kr_syskey_name(uint64_t syskey, char buf[32])
{
	char kind[KR_NAME_BUF];

	if (syskey & KR_SYSKEY_KIND) {
		uint32_t k = (uint32_t)syskey;

		snprintf(buf, 32, "(%s)", kr_enum(katra_kind_name(k), k, kind));
		return buf;
	}
	return kr_syscall_name((uint32_t)syskey, buf);
}

/* A file's path when the capture has one, beside its name; every other
 * resource by its name (names/resnames.h). */
void kr_put_resource(FILE *f, const struct kr_views *v, uint64_t domain, uint64_t id)
{
	const struct kr_fileagg *a = kr_file_find(v, domain, id);

	if (domain == KATRA_RES_NONE)
		return;
	if (a && a->path) {
		katra_json_string(f, a->path, a->path_len);
		putc(' ', f);
	}
	kr_res_put(f, (uint32_t)domain, id);
}

void kr_put_scope(FILE *f, const struct kr_views *v)
{
	const struct katra_dump_when *w[2] = { v->from, v->to };
	static const char *const opt[2] = { "--from", "--to" };
	bool first = true;

	if (!(v->from && v->from->set) && !(v->to && v->to->set)) {
		kr_s(f, " in this trace");
		return;
	}
	kr_s(f, " in this window (");
	for (int i = 0; i < 2; i++) {
		if (!w[i] || !w[i]->set)
			continue;
		fprintf(f, "%s%s ", first ? "" : " ", opt[i]);
		first = false;
		if (w[i]->epoch)
			katra_json_string(f, w[i]->epoch, strlen(w[i]->epoch));
		else
			kr_ts(f, w[i]->ns);
	}
	putc(')', f);
}

void kr_files_unnamed_note(FILE *f, const struct kr_views *v)
{
	const struct kr_fileagg *a;
	size_t it = 0;

	if (v->paths_recorded)
		return;
	while ((a = kr_xmap_next(&v->files, &it))) {
		const struct kr_file_key *k = kr_xmap_key(&v->files, a);

		if (k->domain == KATRA_RES_FILE && !a->path) {
			kr_s(f, "\n(files show as File:N, an identity without a name: paths are "
			     "recorded only by katra-record --paths, and this capture was made "
			     "without it)\n");
			return;
		}
	}
}

void kr_json_resource(FILE *f, const struct kr_views *v, uint64_t domain, uint64_t id)
{
	const struct kr_fileagg *a;
	char buf[KR_NAME_BUF];

	if (domain == KATRA_RES_NONE) {
		kr_s(f, "null");
		return;
	}
	fprintf(f, "{\"domain\":\"%s\",\"id\":\"%llu\",\"name\":\"",
		kr_enum(katra_resource_domain_name((uint32_t)domain), (uint32_t)domain, buf),
		(unsigned long long)id);
	kr_res_put(f, (uint32_t)domain, id);
	putc('"', f);
	a = kr_file_find(v, domain, id);
	if (a && a->path) {
		kr_s(f, ",\"path\":");
		katra_json_string(f, a->path, a->path_len);
	}
	putc('}', f);
}

void kr_json_pname(FILE *f, const struct kr_views *v, uint64_t pid)
{
	const struct kr_procname *n = kr_procnames_get(v->names, pid);

	if (n)
		katra_json_string(f, n->name, n->len);
	else
		kr_s(f, "null");
}
