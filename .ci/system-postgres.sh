# shellcheck shell=bash
# Throwaway system PostgreSQL 15 + pgvector for CI. Source this file; it defines:
#
#   system_pg_start  install postgresql-15 / postgresql-server-dev-15 if missing, build pgvector
#                    from Debian trixie's source package if missing, initdb a temporary cluster,
#                    start it on 127.0.0.1 (non-default port), create database langmemcore_test and
#                    export SYSTEM_PG_URL=postgresql+psycopg://postgres@127.0.0.1:<port>/langmemcore_test
#   system_pg_stop   stop that server and remove its data folder; safe to call twice or never
#                    started (meant for `trap system_pg_stop EXIT`).
#
# Runs as root on Debian 12. The machine's apt configuration is never modified: the trixie source
# package is fetched through a private sources file, lists folder and cache in a temporary folder.
# Both functions return non-zero (never exit) on failure and are safe under `set -euo pipefail`.

_SYSTEM_PG_VERSION=15
_SYSTEM_PG_BIN=/usr/lib/postgresql/${_SYSTEM_PG_VERSION}/bin
_SYSTEM_PG_CONFIG=${_SYSTEM_PG_BIN}/pg_config
_SYSTEM_PG_VECTOR_CONTROL=/usr/share/postgresql/${_SYSTEM_PG_VERSION}/extension/vector.control
_SYSTEM_PG_DB=langmemcore_test
_SYSTEM_PG_DIR=${_SYSTEM_PG_DIR:-}
_SYSTEM_PG_PORT=${_SYSTEM_PG_PORT:-}
_SYSTEM_PG_APT_UPDATED=${_SYSTEM_PG_APT_UPDATED:-}

_system_pg_err() {
    printf 'system-postgres: %s\n' "$*" >&2
}

# Print the last lines of a log file to stderr, if it exists.
_system_pg_tail() {
    if [[ -f "$1" ]]; then
        printf -- '--- last lines of %s ---\n' "$1" >&2
        tail -n "${2:-40}" "$1" >&2
    fi
}

# Run a command with output captured in a temporary log; print the log tail if it fails.
_system_pg_quiet() {
    local log rc=0
    log=$(mktemp) || return 1
    "$@" >"$log" 2>&1 || rc=$?
    if ((rc != 0)); then
        _system_pg_err "command failed (rc=$rc): $*"
        _system_pg_tail "$log" 40
    fi
    rm -f "$log"
    return "$rc"
}

# Install Debian packages that are missing; run `apt-get update` once if the install needs it.
_system_pg_apt_install() {
    local missing=() pkg status
    for pkg in "$@"; do
        status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null) || status=""
        [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
    done
    ((${#missing[@]} == 0)) && return 0
    local -x DEBIAN_FRONTEND=noninteractive
    local -a install=(apt-get install -y --no-install-recommends "${missing[@]}")
    if [[ -z "$_SYSTEM_PG_APT_UPDATED" ]] && "${install[@]}" >/dev/null 2>&1; then
        return 0
    fi
    if [[ -z "$_SYSTEM_PG_APT_UPDATED" ]]; then
        _system_pg_quiet apt-get update || return 1
        _SYSTEM_PG_APT_UPDATED=1
    fi
    _system_pg_quiet "${install[@]}" || {
        _system_pg_err "could not install: ${missing[*]}"
        return 1
    }
}

# The Debian mirror URI the machine's apt already uses (first main-archive URI found).
_system_pg_mirror() {
    local uri=""
    if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
        uri=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' \
            /etc/apt/sources.list.d/debian.sources)
    fi
    if [[ -z "$uri" && -f /etc/apt/sources.list ]]; then
        uri=$(awk '$1 == "deb" && $0 !~ /security/ {
                  for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}
              }' /etc/apt/sources.list)
    fi
    printf '%s\n' "${uri:-http://deb.debian.org/debian}"
}

# Build and install pgvector from Debian trixie's source package against PostgreSQL 15.
_system_pg_build_pgvector() {
    local tmp mirror signed="" rc=0
    tmp=$(mktemp -d) || return 1
    mirror=$(_system_pg_mirror)
    if [[ -f /usr/share/keyrings/debian-archive-keyring.gpg ]]; then
        signed=" [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]"
    fi
    printf 'deb-src%s %s trixie main\n' "$signed" "$mirror" >"$tmp/sources.list"
    mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/src"
    local -a opts=(
        -o "Dir::Etc::SourceList=$tmp/sources.list"
        -o "Dir::Etc::SourceParts=/dev/null"
        -o "Dir::State::Lists=$tmp/lists"
        -o "Dir::Cache=$tmp/cache"
        -o "APT::Sandbox::User=root"
    )
    {
        _system_pg_quiet apt-get "${opts[@]}" update &&
            (cd "$tmp/src" && _system_pg_quiet apt-get "${opts[@]}" source --download-only pgvector)
    } || rc=1
    local orig=""
    if ((rc == 0)); then
        orig=$(compgen -G "$tmp/src/pgvector_*.orig.tar.*" | head -n 1) || true
        [[ -n "$orig" ]] || { _system_pg_err "no pgvector .orig tarball downloaded"; rc=1; }
    fi
    if ((rc == 0)); then
        mkdir -p "$tmp/build" &&
            tar -xf "$orig" -C "$tmp/build" --strip-components=1 &&
            (cd "$tmp/build" &&
                _system_pg_quiet make -j"$(nproc)" PG_CONFIG="$_SYSTEM_PG_CONFIG" &&
                _system_pg_quiet make install PG_CONFIG="$_SYSTEM_PG_CONFIG") || rc=1
    fi
    rm -rf "$tmp"
    if ((rc != 0)) || [[ ! -f "$_SYSTEM_PG_VECTOR_CONTROL" ]]; then
        _system_pg_err "building pgvector from Debian trixie sources failed"
        return 1
    fi
}

# Make sure PostgreSQL 15, its server headers and pgvector are installed.
_system_pg_ensure_installed() {
    local -a pkgs=(postgresql-15)
    if [[ ! -f "$_SYSTEM_PG_VECTOR_CONTROL" ]]; then
        pkgs+=(postgresql-server-dev-15)
        if ! command -v gcc >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
            pkgs+=(build-essential)
        fi
    fi
    _system_pg_apt_install "${pkgs[@]}" || return 1
    if [[ ! -x "$_SYSTEM_PG_BIN/postgres" ]]; then
        _system_pg_err "$_SYSTEM_PG_BIN/postgres missing after install"
        return 1
    fi
    if [[ ! -f "$_SYSTEM_PG_VECTOR_CONTROL" ]]; then
        _system_pg_build_pgvector || return 1
    fi
}

# True if something accepts TCP connections on 127.0.0.1:$1.
_system_pg_port_busy() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

_system_pg_as_postgres() {
    (cd / && runuser -u postgres -- "$@")
}

_system_pg_psql() {
    "$_SYSTEM_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$_SYSTEM_PG_PORT" \
        -U postgres "$@"
}

system_pg_start() {
    if [[ -n "$_SYSTEM_PG_DIR" && -n "$_SYSTEM_PG_PORT" ]] &&
        "$_SYSTEM_PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$_SYSTEM_PG_PORT" 2>/dev/null; then
        export SYSTEM_PG_URL="postgresql+psycopg://postgres@127.0.0.1:${_SYSTEM_PG_PORT}/${_SYSTEM_PG_DB}"
        return 0
    fi
    system_pg_stop || true
    if ((EUID != 0)); then
        _system_pg_err "must run as root (installs packages, runs the server as user postgres)"
        return 1
    fi
    _system_pg_ensure_installed || return 1
    if ! getent passwd postgres >/dev/null; then
        _system_pg_err "system user postgres missing"
        return 1
    fi

    local port=55432
    while _system_pg_port_busy "$port"; do
        port=$((port + 1))
        if ((port > 55532)); then
            _system_pg_err "no free port in 55432-55532"
            return 1
        fi
    done

    local dir
    dir=$(mktemp -d /tmp/system-pg.XXXXXX) || return 1
    _SYSTEM_PG_DIR=$dir
    _SYSTEM_PG_PORT=$port
    chown postgres:postgres "$dir" || { system_pg_stop; return 1; }

    if ! _system_pg_quiet _system_pg_as_postgres "$_SYSTEM_PG_BIN/initdb" -D "$dir" \
        -U postgres --auth=trust -E UTF8 --locale=C.UTF-8; then
        _system_pg_err "initdb failed"
        system_pg_stop
        return 1
    fi
    local opts="-c listen_addresses=127.0.0.1 -p $port -c fsync=off -c synchronous_commit=off"
    opts+=" -c full_page_writes=off -c unix_socket_directories=$dir"
    if ! _system_pg_quiet _system_pg_as_postgres "$_SYSTEM_PG_BIN/pg_ctl" -w -t 60 -D "$dir" \
        -o "$opts" -l "$dir/log" start; then
        _system_pg_err "server failed to start on port $port"
        _system_pg_tail "$dir/log" 40
        system_pg_stop
        return 1
    fi

    local available
    if ! _system_pg_quiet _system_pg_psql -d postgres -c "CREATE DATABASE $_SYSTEM_PG_DB" ||
        ! available=$(_system_pg_psql -d "$_SYSTEM_PG_DB" -At -c \
            "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'" 2>&1) ||
        [[ -z "$available" ]]; then
        _system_pg_err "database setup failed or extension 'vector' not available ${available:-}"
        _system_pg_tail "$dir/log" 40
        system_pg_stop
        return 1
    fi

    local server_version
    server_version=$(_system_pg_psql -d "$_SYSTEM_PG_DB" -At -c 'SHOW server_version') ||
        server_version="$_SYSTEM_PG_VERSION"
    export SYSTEM_PG_URL="postgresql+psycopg://postgres@127.0.0.1:${port}/${_SYSTEM_PG_DB}"
    printf 'system postgres %s with pgvector %s on port %s\n' \
        "${server_version%% *}" "$available" "$port"
}

system_pg_stop() {
    local dir=$_SYSTEM_PG_DIR
    _SYSTEM_PG_DIR=""
    _SYSTEM_PG_PORT=""
    unset SYSTEM_PG_URL
    [[ -n "$dir" ]] || return 0
    local pid=""
    if [[ -f "$dir/postmaster.pid" ]]; then
        pid=$(head -n 1 "$dir/postmaster.pid" 2>/dev/null) || pid=""
        if ! _system_pg_as_postgres "$_SYSTEM_PG_BIN/pg_ctl" -D "$dir" -m fast -w -t 30 stop \
            >/dev/null 2>&1; then
            _system_pg_as_postgres "$_SYSTEM_PG_BIN/pg_ctl" -D "$dir" -m immediate -w -t 30 stop \
                >/dev/null 2>&1 || true
            if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
                kill -9 "$pid" 2>/dev/null || true
            fi
        fi
    fi
    # pg_ctl returns once postmaster.pid is gone; give the postmaster a moment to be reaped so
    # that no (zombie) postgres process is left when the caller checks.
    local i
    if [[ "$pid" =~ ^[0-9]+$ ]]; then
        for ((i = 0; i < 50; i++)); do
            [[ -e "/proc/$pid" ]] || break
            sleep 0.1
        done
    fi
    case "$dir" in
        /tmp/system-pg.*) rm -rf -- "$dir" ;;
        *) _system_pg_err "refusing to remove unexpected folder $dir" ;;
    esac
    return 0
}
