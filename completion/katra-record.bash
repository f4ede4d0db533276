# bash completion for katra-record(8); installed as
# share/bash-completion/completions/katra-record.
_katra_record()
{
	local cur prev i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	# after --: the command and its own arguments
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == -- ]]; then
			if declare -F _command_offset >/dev/null; then
				_command_offset $((i + 1))
			else
				COMPREPLY=($(compgen -c -- "$cur"))
			fi
			return
		fi
	done
	case $prev in
	-p | --pid)
		COMPREPLY=($(compgen -W "$(cd /proc && echo [0-9]*)" -- "$cur"))
		return ;;
	-o | --output | --summary-json | --ready-file | --epoch-fifo)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	-e | --events)
		COMPREPLY=($(compgen -W "io sync mem sched proc syscalls all" -- "${cur##*,}"))
		return ;;
	-u | --user)
		COMPREPLY=($(compgen -u -- "$cur"))
		return ;;
	--drain-policy)
		COMPREPLY=($(compgen -W "idle normal" -- "$cur"))
		return ;;
	-d | --duration | --buffer-size | --max-loss | --label | --stack-threshold | --sample-hz)
		return ;;
	esac
	COMPREPLY=($(compgen -W "-p --pid -o --output -z --compress -f --force -d --duration
		--no-follow --session --no-session --no-uprobes --buffer-size --paths --stacks --stack-threshold --no-symbols --sample-hz --epoch-fifo --label --summary-json --ready-file
		-e --events -u --user --max-loss --drain-policy --bpf-stats -q --quiet
		-v --verbose -h --help -V --version --" -- "$cur"))
}
complete -F _katra_record katra-record
