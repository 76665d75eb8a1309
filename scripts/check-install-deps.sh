#!/usr/bin/env bash
# Checks scripts/install-deps.sh the way a new user's machine meets it: against
# an apt configuration of its own with a stock bookworm's sources (main only),
# its own package lists, its own (empty) dpkg status and its own sources
# folder. Whatever sources or packages this machine has cannot make it pass.
#
#   scripts/check-install-deps.sh        (needs root or sudo, and Debian's archive)
#
# It checks that
#   1. the stock configuration offers no TestU01 (the negative control: else
#      the rest would prove nothing about adding the non-free source);
#   2. `build` resolves every package from main alone and adds no source;
#   3. `test` and `ci` add the non-free source themselves and then every
#      package, with its whole dependency closure, resolves (apt-get install -s);
#   4. `arm64` resolves its arm64 packages from main alone, adding no source
#      (its package lists for arm64 asked of apt, as its --simulate does).
#
# Each job starts from a fresh configuration whose lists folder holds a copy of
# the lists that check 1 downloaded with the same stock sources: the job's own
# `apt-get update` still asks the archive (and drops any list its sources do
# not name), but finds those lists current instead of downloading them again
# (bookworm's lists are fetched once, not five times). Every configuration
# names the architectures it reads, so an architecture this machine's dpkg
# has (install-deps.sh arm64 adds arm64) changes nothing here either.
set -uo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"

root="$(mktemp -d /tmp/randtensor-apt.XXXXXX)"
chmod 755 "$root"  # apt downloads as the _apt user
trap '$SUDO rm -rf "$root"' EXIT
passed=0 failed=0
pass() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAILED: $*"; failed=$((failed + 1)); }

native="$(dpkg --print-architecture)"
# A fresh apt configuration: stock sources, nothing else of this machine's;
# its lists folder starts with the stock lists check 1 fetched (once it has).
fresh_config() {
  $SUDO rm -rf "$root/apt"
  mkdir -p "$root/apt/sources.list.d" "$root/apt/lists/partial" "$root/apt/cache/archives/partial"
  if [ -d "$root/stock-lists" ]; then $SUDO cp -a "$root/stock-lists/." "$root/apt/lists/"; fi
  : > "$root/apt/status"
  : > "$root/apt/sources.list"
  cat > "$root/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: $codename $codename-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: $codename-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  cat > "$root/apt/apt.conf" <<EOF
Dir::Etc::sourcelist "$root/apt/sources.list";
Dir::Etc::sourceparts "$root/apt/sources.list.d";
Dir::State::Lists "$root/apt/lists";
Dir::State::status "$root/apt/status";
Dir::Cache "$root/apt/cache";
APT::Architectures { "$native"; };
EOF
  export APT_CONFIG="$root/apt/apt.conf"
}

arch_opts=()  # the arm64 job's: apt's arm64 lists too
has_candidate() {
  apt-cache "${arch_opts[@]}" policy "$1" 2>/dev/null |
    awk '$1 == "Candidate:" { found = ($2 != "(none)") } END { exit !found }'
}
added_sources() { ls "$root/apt/sources.list.d" | grep -v '^debian.sources$'; }

# 1. Negative control.
fresh_config
if ! $SUDO env APT_CONFIG="$APT_CONFIG" apt-get update -qq; then
  fail "apt-get update with stock sources (is Debian's archive reachable?)"
  echo "$passed passed, $failed failed"; exit 1
fi
$SUDO cp -a "$root/apt/lists" "$root/stock-lists"
if has_candidate libtestu01-0-dev; then
  fail "stock sources already offer libtestu01-0-dev: this check would prove nothing"
elif has_candidate libhwy-dev; then
  pass "stock sources offer libhwy-dev but not libtestu01-0-dev"
else
  fail "stock sources offer neither libhwy-dev nor libtestu01-0-dev: lists not read"
fi

# 2-3. Each job from a fresh configuration.
for job in build test-programs test ci arm64; do
  fresh_config
  arch_opts=()
  if [ "$job" = arm64 ]; then
    arch_opts=(-o "APT::Architectures::=$native" -o APT::Architectures::=arm64)
  fi
  log="$root/$job.log"
  if $SUDO env APT_CONFIG="$APT_CONFIG" scripts/install-deps.sh "$job" --simulate > "$log" 2>&1; then
    pass "install-deps.sh $job --simulate: $(tail -1 "$log")"
  else
    fail "install-deps.sh $job --simulate exited non-zero:"; sed 's/^/    /' "$log"
    continue
  fi
  added="$(added_sources)"
  if [ "$job" = build ] || [ "$job" = test-programs ] || [ "$job" = arm64 ]; then
    [ -z "$added" ] && pass "$job added no apt source" || fail "$job added $added"
  else
    [ "$added" = "randtensor-non-free.sources" ] && pass "$job added $added" ||
      fail "$job added '$added', expected randtensor-non-free.sources"
  fi
  unresolved=()
  for pkg in $(scripts/install-deps.sh "$job" --list); do
    has_candidate "$pkg" || unresolved+=("$pkg")
  done
  [ ${#unresolved[@]} -eq 0 ] && pass "$job: every package has a candidate" ||
    fail "$job: no candidate for ${unresolved[*]}"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
