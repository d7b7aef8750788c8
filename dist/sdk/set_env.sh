# npuprof's CANN-compatible SDK: the environment CANN's set_env.sh sets up,
# for a program built against this tree and run on npusim. Source it:
#   source <sdk>/set_env.sh
# Under bash every path is taken from where this file is (the tree may be
# moved); other shells cannot tell, and take the path it was installed at.
if [ -n "${BASH_VERSION:-}" ]; then
	_npuprof_sdk=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
else
	_npuprof_sdk=@PREFIX@
fi
export ASCEND_HOME_PATH="$_npuprof_sdk"
export ASCEND_TOOLKIT_HOME="$_npuprof_sdk"
export ASCEND_INSTALL_PATH="$_npuprof_sdk"
export ASCEND_OPP_PATH="$_npuprof_sdk/opp"
export LD_LIBRARY_PATH="$_npuprof_sdk/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$_npuprof_sdk/bin${PATH:+:$PATH}"
export CMAKE_PREFIX_PATH="$_npuprof_sdk${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
unset _npuprof_sdk
