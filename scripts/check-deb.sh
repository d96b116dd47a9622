#!/usr/bin/env bash
# Checks a pamc .deb (scripts/build-deb.sh builds one): its contents and dependencies
# (dpkg-deb), Debian policy (lintian: no error), then installs it with dpkg into a
# throwaway root and runs the installed pamc from / by its full path and through PATH from
# another folder (--machine x1e, an import of the stdlib), the installed Python module, and
# removes it again.
#
#   ./scripts/check-deb.sh build-deb/pamc_0.1.0-1_amd64.deb
#
# The throwaway root holds only the package (dpkg --root, dependencies not installed
# there: --force-depends), so its programs run with this machine's libraries: the check
# first verifies that every dependency dpkg-shlibdeps named is installed here, which is
# what `dpkg -i` on this machine would demand. The package has no maintainer-script work
# (its ldconfig run is a trigger), so its scripts run unchrooted without effect.
set -euo pipefail
deb=$(readlink -f "$1")
src=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "check-deb: FAIL: $*" >&2; exit 1; }

# 1. Contents and control fields.
contents=$(dpkg-deb --contents "$deb" | awk '{print $6}')
for f in ./usr/bin/pamc ./usr/share/pamc/machines/x1e.pam ./usr/share/pamc/stdlib/comm.pam \
         ./usr/share/man/man1/pamc.1.gz ./usr/share/bash-completion/completions/pamc \
         ./usr/include/pamela/pamela.h ./usr/share/doc/pamc/copyright ./usr/share/doc/pamc/changelog.Debian.gz; do
  grep -qxF "$f" <<<"$contents" || fail "the package has no $f"
done
grep -qE '^\./usr/lib/([a-z0-9_-]+/)?libpamela\.so\.0$' <<<"$contents" || fail "the package has no libpamela.so.0"
grep -qE '^\./usr/lib/([a-z0-9_-]+/)?cmake/pamela/pamelaConfig\.cmake$' <<<"$contents" || fail "no CMake package"
grep -qE '^\./usr/lib/python3/dist-packages/pamela\..*\.so$' <<<"$contents" || fail "no Python module"
depends=$(dpkg-deb --field "$deb" Depends)
for lib in libginac libcln libantlr4-runtime libboost-program-options libc6 libstdc++6; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib (dpkg-shlibdeps): $depends"
done
echo "check-deb: contents ok; Depends: $depends"
for pkg in $(tr ',' '\n' <<<"$depends" | sed 's/(.*//; s/|.*//' | tr -d ' '); do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
    fail "dependency $pkg is not installed on this machine"
done

# 2. Policy: lintian, failing on errors only (warnings are printed; docs/install.md says
# which remain and why).
command -v lintian >/dev/null || fail "lintian is not installed (apt-get install lintian)"
lint_status=0
lint=$(lintian --fail-on error "$deb" 2>&1) || lint_status=$?
grep -v "running with root" <<<"$lint" || true
[ "$lint_status" -eq 0 ] || fail "lintian reports errors"
echo "check-deb: lintian: no errors"

# 3. Install into a throwaway root, run from /, remove.
root=$(mktemp -d /tmp/pamc-deb-root.XXXXXX)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/log"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
dpkg --root="$root" --force-depends --force-script-chrootless --log=/dev/null -i "$deb" > "$root.log" 2>&1 ||
  { cat "$root.log"; rm -f "$root.log"; fail "dpkg -i into $root"; }
rm -f "$root.log"
dpkg --root="$root" -s pamc | grep -q "Status: install ok installed" || fail "dpkg does not list pamc as installed"
pamc="$root/usr/bin/pamc"
out=$(cd / && env -u PAMC_PATH "$pamc" compile --machine x1e "$src/samples/sp_tzetar.pam") ||
  fail "the installed pamc compile --machine x1e samples/sp_tzetar.pam"
grep -q "T_main" <<<"$out" || fail "compile printed no T_main: $out"
echo "check-deb: installed pamc compile --machine x1e samples/sp_tzetar.pam from /: ok"
cat > "$root/imports.pam" <<'PAM'
import "comm.pam"
numeric parameter P
process main = delay(P)
PAM
[ "$(cd / && env -u PAMC_PATH "$pamc" eval "$root/imports.pam" -D P=3)" = "numeric T_main = 3" ] ||
  fail "the installed pamc does not find import \"comm.pam\""
# As a user runs it: /usr/bin on PATH (here the root's usr/bin), typed as `pamc`, from a
# folder of the user's own; the program then has no folder in its name and finds its files
# through /proc/self/exe.
work=$(mktemp -d /tmp/pamc-deb-work.XXXXXX)
trap 'rm -rf "$root" "$work"' EXIT
printf 'numeric parameter N\nprocess main = delay(N / vector_unit_clock)\n' > "$work/m.pam"
cp "$root/imports.pam" "$work/imports.pam"
[ "$(cd "$work" && env -u PAMC_PATH PATH="$root/usr/bin:$PATH" pamc eval m.pam --machine x1e -D N=2.26e9)" = \
  "numeric T_main = 2" ] || fail "pamc through PATH from $work: eval m.pam --machine x1e"
[ "$(cd "$work" && env -u PAMC_PATH PATH="$root/usr/bin:$PATH" pamc eval imports.pam -D P=3)" = \
  "numeric T_main = 3" ] || fail "pamc through PATH from $work: import \"comm.pam\""
echo "check-deb: installed pamc through PATH from another folder (--machine x1e, import \"comm.pam\"): ok"
if command -v man >/dev/null; then
  warnings=$(MANWIDTH=80 MANPAGER=cat man --warnings -l "$root/usr/share/man/man1/pamc.1.gz" 2>&1 >/dev/null)
  [ -z "$warnings" ] || fail "man -l of the installed page warns: $warnings"
  echo "check-deb: installed man page renders without warnings: ok"
fi
# The Python module, for the interpreter it was built for; in /usr the loader finds
# libpamela by itself, in the throwaway root it is told where.
libdir=$(dirname "$(find "$root/usr/lib" -name 'libpamela.so.0' | head -1)")
python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$(dirname "$deb")/CMakeCache.txt" 2>/dev/null || true)
python=${python:-python3}
py=$(cd "$work" && env -u PAMC_PATH PYTHONPATH="$root/usr/lib/python3/dist-packages" LD_LIBRARY_PATH="$libdir" "$python" -c "
import pamela, numpy
m = pamela.Model('$src/samples/sp_tzetar.pam', machines=['x1e'])
print(pamela.__file__.startswith('$root'), m(problem_size=numpy.array([36, 64])).shape)") ||
  fail "the installed Python module"
[ "$py" = "True (2,)" ] || fail "the installed Python module printed: $py"
echo "check-deb: installed Python module: ok"
dpkg --root="$root" --force-script-chrootless --log=/dev/null -r pamc > /dev/null
[ -z "$(find "$root/usr" -type f 2>/dev/null)" ] || fail "dpkg -r left files: $(find "$root/usr" -type f)"
echo "check-deb: dpkg -r removes every file: ok"
echo "check-deb: $deb passed"
