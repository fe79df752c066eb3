#!/usr/bin/env bash
# In the VM, for make check: the kselftests, then nfsd-io-bench's dry runs and
# its 10-second smoke run of each target, so that the suite cannot rot.
set -euo pipefail
here=$(dirname "$0")
# shellcheck source=scripts/guest/lib.sh
. "$here/lib.sh"
part kselftests "$here/kselftest.sh"
"$here/bench.sh" smoke
