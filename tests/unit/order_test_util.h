/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the unit tests of the reorder stage (order.c): test_order.c
 * and test_record.c both fill rings with tagged keys.  Header-only (static)
 * so each test file stays standalone. */
#ifndef KATRA_ORDER_TEST_UTIL_H
#define KATRA_ORDER_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "record/pipeline/order.h"

/* Queues an item with only its key and a tag (kept in head.tid) on a ring,
 * so a test can tell which item comes out. */
static inline void push_key(struct order *o, unsigned ring, uint64_t key, uint32_t tag)
{
	struct pending *p = order_slot(o, ring);

	cr_assert_not_null(p);
	memset(p, 0, sizeof(*p));
	p->key = key;
	p->u.head.tid = tag;
	order_commit(o, ring);
}

#endif
