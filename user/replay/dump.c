/* The dump command: stream every record through the text or JSON-lines
 * formatter.  Memory stays that of the reader; a bad tail still leaves the
 * good prefix on out. */
#include <stdio.h>

#include "katra/replay.h"
#include "open.h"

int katra_dump(const char *path, FILE *out, bool jsonl, FILE *err)
{
	struct katra_reader *r = NULL;
	struct katra_record rec;
	enum katra_read_status st;
	int ret, fret;

	ret = kr_open(&r, path, err);
	if (ret)
		return ret;
	if (jsonl)
		katra_jsonl_header(out, katra_reader_header(r));
	else
		katra_dump_header_text(out, katra_reader_header(r));
	while ((st = katra_reader_next(r, &rec)) == KATRA_READ_RECORD) {
		if (jsonl)
			katra_jsonl_record(out, &rec);
		else
			katra_dump_record_text(out, &rec);
	}
	/* the good prefix goes out before the reason the stream stopped */
	fret = kr_flush_out(out, err);
	ret = kr_end_status(r, st, path, err);
	if (!ret)
		ret = fret;
	katra_reader_close(r);
	return ret;
}
