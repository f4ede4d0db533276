# bash completion for katra-replay(1); installed as
# share/bash-completion/completions/katra-replay.
_katra_replay()
{
	local cur prev cmd opts
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	if ((COMP_CWORD == 1)); then
		COMPREPLY=($(compgen -W "verify dump stats report compare export -h --help -V --version" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	case $cmd in
	verify) opts="--max-problems --strict" ;;
	dump) opts="--jsonl --pid --tid --kind --from --to" ;;
	stats) opts="--json --syscalls --calls --per-process --per-frame --gpu --files --off-cpu --top --overview --all --stacks --folded --on-cpu --symbols --no-debuginfod --from --to" ;;
	compare) opts="--json --ignore" ;;
	export) opts="--format -o --output --pid --from --to --no-args --speedscope --stacks --symbols --no-debuginfod --parquet --no-compress --row-group" ;;
	report) opts="--json --html --top --index-cap --max-epochs --pid --tid --frames --symbols --no-debuginfod" ;;
	*) return ;;
	esac
	case $prev in
	--html | -o | --output | --symbols)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--max-problems | --top | --index-cap | --pid | --tid | --kind | --from | --to | --ignore | --format | --max-epochs)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts -h --help" -- "$cur"))
	else
		# any file: traces are told apart by their bytes, not their names
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _katra_replay katra-replay
