// SPDX-License-Identifier: GPL-2.0-only
/* compare: pairing threads, aligning each pair, describing where they part
 * (see compare.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "align.h"
#include "compare.h"

static int add_pair(struct kr_compare *c, size_t *cap, const struct kr_cmp_thread *ta,
		    int64_t ia, const struct kr_cmp_thread *tb, int64_t ib)
{
	struct kr_cmp_pair *p;

	if (c->npairs == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct kr_cmp_pair *n = realloc(c->pairs, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->pairs = n;
		*cap = ncap;
	}
	p = &c->pairs[c->npairs++];
	memset(p, 0, sizeof(*p));
	p->a = ia;
	p->b = ib;
	p->proc_no = ta ? ta->proc_no : tb->proc_no;
	p->thread_no = ta ? ta->thread_no : tb->thread_no;
	p->len_a = ta ? ta->len : 0;
	p->len_b = tb ? tb->len : 0;
	p->exact = true;
	return 0;
}

static int cmp_no(const struct kr_cmp_thread *x, const struct kr_cmp_thread *y)
{
	if (x->proc_no != y->proc_no)
		return x->proc_no < y->proc_no ? -1 : 1;
	return x->thread_no < y->thread_no ? -1 : x->thread_no > y->thread_no;
}

static int align_pair(struct kr_compare *c, struct kr_cmp_pair *p)
{
	const struct kr_cmp_thread *ta = p->a >= 0 ? &c->a.threads[p->a] : NULL;
	const struct kr_cmp_thread *tb = p->b >= 0 ? &c->b.threads[p->b] : NULL;
	struct kr_align_result r = { 0 };
	int ret;

	if (ta && tb) {
		ret = kr_align(ta->tok, ta->len, tb->tok, tb->len, &kr_align_default_limits, &r);
		if (ret)
			return ret;
	}
	p->matched = r.matched;
	p->prefix = r.prefix;
	p->exact = r.exact;
	p->differs = !ta || !tb || r.matched != ta->len || ta->len != tb->len;
	p->causal_differs = !ta || !tb || ta->edges != tb->edges || ta->edge_hash != tb->edge_hash;
	return 0;
}

int kr_compare_pairs(struct kr_compare *c)
{
	size_t cap = 0;
	uint32_t i = 0, j = 0;
	int ret;

	c->npairs = 0;
	c->matched = 0;
	c->exact = true;
	while (i < c->a.nthreads || j < c->b.nthreads) {
		const struct kr_cmp_thread *ta =
			i < c->a.nthreads ? &c->a.threads[c->a.order[i]] : NULL;
		const struct kr_cmp_thread *tb =
			j < c->b.nthreads ? &c->b.threads[c->b.order[j]] : NULL;
		int o = !ta ? 1 : !tb ? -1 : cmp_no(ta, tb);

		if (o < 0)
			ret = add_pair(c, &cap, ta, c->a.order[i++], NULL, -1);
		else if (o > 0)
			ret = add_pair(c, &cap, NULL, -1, tb, c->b.order[j++]);
		else
			ret = add_pair(c, &cap, ta, c->a.order[i++], tb, c->b.order[j++]);
		if (ret)
			return ret;
	}
	for (size_t k = 0; k < c->npairs; k++) {
		ret = align_pair(c, &c->pairs[k]);
		if (ret)
			return ret;
		c->matched += c->pairs[k].matched;
		c->exact &= c->pairs[k].exact;
	}
	c->equivalent = c->a.structural_hash == c->b.structural_hash &&
			c->a.causal_hash == c->b.causal_hash;
	return 0;
}

/* A pair's name: its thread's (or process's) on side A, else on B. */
static const struct kr_procname *pair_name(const struct kr_compare *c, const struct kr_cmp_pair *p)
{
	const struct kr_cmp_trace *t = p->a >= 0 ? &c->a : &c->b;
	int64_t ix = p->a >= 0 ? p->a : p->b;

	if (ix < 0)
		return NULL;
	return kr_procnames_thread_or_process(&t->names, t->threads[ix].tid, t->threads[ix].pid);
}

/* Its name as text (bare or JSON-quoted, names/procnames.h), or "". */
static void pair_name_text(const struct kr_compare *c, const struct kr_cmp_pair *p, char *buf,
			   size_t cap)
{
	const struct kr_cmp_trace *t = p->a >= 0 ? &c->a : &c->b;
	int64_t ix = p->a >= 0 ? p->a : p->b;

	buf[0] = 0;
	if (ix >= 0)
		kr_thread_name_label(&t->names, t->threads[ix].tid, t->threads[ix].pid, buf, cap);
}

const char *kr_compare_pair_label(const struct kr_compare *c, const struct kr_cmp_pair *p,
				  char *buf, size_t cap)
{
	const struct kr_procname *n = pair_name(c, p), *o;
	bool shared = false;
	size_t len;

	pair_name_text(c, p, buf, cap);
	for (size_t i = 0; n && i < c->npairs && !shared; i++) {
		if (&c->pairs[i] == p)
			continue;
		o = pair_name(c, &c->pairs[i]);
		shared = o && o->len == n->len && !memcmp(o->name, n->name, n->len);
	}
	len = strlen(buf);
	if (!len || shared)
		snprintf(buf + len, cap - len, "%sp%u/t%u", len ? " " : "", p->proc_no,
			 p->thread_no);
	return buf;
}

double kr_compare_equivalence(const struct kr_compare *c)
{
	uint64_t all = c->a.compared + c->b.compared;

	return all ? 200.0 * (double)c->matched / (double)all : 100.0;
}

int kr_compare_run(struct kr_compare *c, const char *path_a, const char *path_b,
		   kr_kindset ignore, FILE *err)
{
	int ret;

	memset(c, 0, sizeof(*c));
	c->path_a = path_a;
	c->path_b = path_b;
	ret = kr_cmp_trace_load(&c->a, path_a, ignore, err);
	if (!ret)
		ret = kr_cmp_trace_load(&c->b, path_b, ignore, err);
	if (ret)
		return ret;
	if (kr_compare_pairs(c)) {
		fprintf(err, "katra-replay: compare: out of memory\n");
		return -ENOMEM;
	}
	for (size_t k = 0; k < c->npairs; k++) {
		const struct kr_cmp_pair *p = &c->pairs[k];

		if (!p->differs)
			continue;
		if (p->a >= 0)
			c->a.threads[p->a].want = p->prefix;
		if (p->b >= 0)
			c->b.threads[p->b].want = p->prefix;
	}
	ret = kr_cmp_trace_fetch(&c->a, path_a, err);
	if (!ret)
		ret = kr_cmp_trace_fetch(&c->b, path_b, err);
	return ret;
}

void kr_compare_free(struct kr_compare *c)
{
	kr_cmp_trace_free(&c->a);
	kr_cmp_trace_free(&c->b);
	free(c->pairs);
	c->pairs = NULL;
	c->npairs = 0;
}

int kr_compare_ignore_option(kr_kindset *ignore, const char *list, char *bad, size_t bad_cap)
{
	kr_kindset add;
	int rc = kr_kindset_parse(list, &add, bad, bad_cap);

	if (rc)
		return rc;
	*ignore = add ? *ignore | add : 0; /* only "none" (or "") parses to nothing */
	return 0;
}
