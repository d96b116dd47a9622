# bash completion for pamc: subcommands, each subcommand's options, the values of --stage,
# --emit and --dist, machine names for --machine (the installed share/pamc/machines next to
# pamc, or the source tree's machines/), and .pam files. Installed as
# share/bash-completion/completions/pamc; from a checkout: source scripts/pamc-completion.bash
_pamc_machines() {
  local bin dir
  bin=$(command -v "${COMP_WORDS[0]}" 2>/dev/null) || return
  for dir in "$(dirname "$bin")/../share/pamc/machines" "$(dirname "$bin")/../machines"; do
    if [ -d "$dir" ]; then
      (cd "$dir" && ls -1 -- *.pam 2>/dev/null | sed 's/\.pam$//')
      return
    fi
  done
}

_pamc() {
  local cur prev cmd
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  local commands="check compile eval simulate sweep explain sensitivity validate fit project hybrid lsp"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
    return
  fi
  cmd=${COMP_WORDS[1]}
  local common="-I --include --machine -h --help"
  local defines="-D --define"
  local opts=""
  case $cmd in
    check) opts="$common --no-lower" ;;
    compile) opts="--stage --emit -o --output --all --stats $common" ;;
    eval) opts="$defines --target --json --closed-form --brute-force --max-terms $common" ;;
    simulate) opts="$defines --dist --seed --runs --max-events --max-processes --target --json $common" ;;
    sweep) opts="$defines --sweep --target --csv --plot --speedup --timing --heatmap $common" ;;
    explain|sensitivity) opts="$defines --target --json $common" ;;
    validate) opts="$defines --trace --json $common" ;;
    fit) opts="$defines --data --fit --target --measured --relative --start --max-iterations --json -o --output $common" ;;
    project) opts="--targets --coefficients --base-mode --method --application --seed --population --generations --stall --tournament --mutation --crossover --reproduction --limit --max-surrogates --json --csv $common" ;;
    hybrid) opts="--alpha --min-size --json $common" ;;
    lsp) opts="--debounce --time-budget --limit $common" ;;
  esac
  case $prev in
    --stage) COMPREPLY=($(compgen -W "parsed normalized time simplified" -- "$cur")); return ;;
    --emit) COMPREPLY=($(compgen -W "pamela cpp octave json latex sympy" -- "$cur")); return ;;
    --dist) COMPREPLY=($(compgen -W "det exp" -- "$cur")); return ;;
    --machine) COMPREPLY=($(compgen -W "$(_pamc_machines)" -- "$cur")); return ;;
    -I|--include) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    -o|--output|--csv|--plot|--data|--trace) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    -D|--define|--target|--sweep|--fit|--start|--seed|--runs|--max-events|--max-terms|--max-iterations|--measured|--debounce|--time-budget|--limit) return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -X '!*.pam' -- "$cur") $(compgen -d -- "$cur"))
  fi
}
complete -o filenames -F _pamc pamc
