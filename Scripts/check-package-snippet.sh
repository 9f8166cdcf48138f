#!/usr/bin/env bash
# Builds and runs a new package whose Package.swift is the README's exact text (between
# <!-- package-snippet --> and <!-- /package-snippet -->), beside this checkout reached through a folder of
# the name the snippet gives (a symlink, a name other than the package's "Strata": a path dependency's
# identity is its folder's name), and runs a main.swift that saves and fetches an object.
# The work folder, .build-snippet/ in this checkout, is kept between runs so that a rerun builds only
# what changed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
fail() { echo "package snippet check failed: $*" >&2; exit 1; }

# The snippet: the lines between the markers, less the fence lines.
snippet=$(awk '/^<!-- package-snippet -->$/ {on=1; next} /^<!-- \/package-snippet -->$/ {on=0} on' "$root/README.md")
[[ -n "$snippet" ]] || fail "no <!-- package-snippet --> … <!-- /package-snippet --> block in README.md"
[[ "$(head -1 <<<"$snippet")" == '```swift' && "$(tail -1 <<<"$snippet")" == '```' ]] \
    || fail "the markers must enclose exactly one fenced block"
manifest=$(sed '1d;$d' <<<"$snippet")

# The folder the snippet names, and the identity it uses for it.
folder=$(sed -nE 's/.*\.package\(path: "\.\.\/([^"\/]+)"\).*/\1/p' <<<"$manifest")
[[ -n "$folder" ]] || fail 'the snippet has no .package(path: "../<folder>")'
[[ "${folder,,}" != "strata" ]] || fail "the snippet's folder must not be named like the package, or the identity rule goes untested"
grep -q "package: \"$folder\"" <<<"$manifest" || fail "the snippet's .product(…, package:) is not the folder name \"$folder\""
# The platforms the snippet declares are the ones Strata's Package.swift declares.
want=$(grep -oE 'platforms: \[[^]]*\]' "$root/Package.swift")
grep -qF "$want" <<<"$manifest" || fail "the snippet's platforms are not Package.swift's: $want"

work="$root/.build-snippet"
mkdir -p "$work/App/Sources/App"
ln -sfn "$root" "$work/$folder"
printf '%s\n' "$manifest" > "$work/App/Package.swift"
cat > "$work/App/Sources/App/main.swift" <<'SWIFT'
import Strata

final class Note: Model {
    var id: Int64 = 0
    var title = ""
    required init() {}
}

let db = try Database()
let note = Note()
note.title = "hello"
try db.save(note)
print("Strata \(StrataLibrary.version): \(try db.count(Note.self)) note, \(try db.objects(Note.self, where: "id IN (?)", [note.id]).map(\.title))")
SWIFT
cd "$work/App"
output=$(swift run -q App 2>&1) || { echo "$output" >&2; fail "the package did not build or run"; }
echo "$output"
[[ "$output" == *"1 note, [\"hello\"]"* ]] || fail "unexpected output"
echo "package snippet: ok (folder \"$folder\")"
