#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# SPDX: every source file of the project names its license (GPL-2.0-only, the
# LICENSE file; the BPF programs' "GPL" license string agrees with it).
#   tools/spdx.sh          add the line where it is missing
#   tools/spdx.sh --check  list files without it; exit 1 if any
set -euo pipefail
cd "$(dirname "$0")/.."
check=${1:-}
missing=0
while IFS= read -r f; do
	head -n 3 "$f" | grep -q 'SPDX-License-Identifier:' && continue
	if [[ $check == --check ]]; then
		echo "no SPDX line: $f"
		missing=$((missing + 1))
		continue
	fi
	case "$f" in
	*.c | *.rs) line='// SPDX-License-Identifier: GPL-2.0-only' ;;
	*.h | *.S) line="/* SPDX-License-Identifier: GPL-2.0-only */" ;;
	*) line='# SPDX-License-Identifier: GPL-2.0-only' ;;
	esac
	if head -n 1 "$f" | grep -q '^#!'; then
		{ head -n 1 "$f"; echo "$line"; tail -n +2 "$f"; } >"$f.spdx"
	else
		{ echo "$line"; cat "$f"; } >"$f.spdx"
	fi
	chmod --reference="$f" "$f.spdx"
	mv "$f.spdx" "$f"
done < <(git ls-files '*.c' '*.h' '*.sh' '*.py' '*.rs' '*.S' 'Makefile' '*/Makefile' '.ci/run' |
	grep -v '^bpf/vmlinux/')
if [[ $check == --check ]]; then
	echo "$((missing == 0 ? 1 : 0)) passed, $((missing == 0 ? 0 : 1)) failed"
	((missing == 0))
fi
