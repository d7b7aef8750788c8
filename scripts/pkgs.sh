# scripts/pkgs.sh (sourced): pkgs_install TAG PKG...: install the Debian
# packages of the list that are missing (apt-get, through sudo when not
# root), saying which under TAG; nothing when all are present.
pkgs_install() {
	tag=$1
	shift
	missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "$tag: installing$missing"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
}
