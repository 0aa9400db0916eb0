# Kernel-interface probes: headers that decide which features are compiled in. Whether the running
# kernel has them is checked at run time (sandbench-cli doctor).
include(CheckIncludeFileCXX)
include(CheckSymbolExists)
check_include_file_cxx(linux/landlock.h SANDBENCH_HAVE_LANDLOCK_H)
check_symbol_exists(SYS_openat2 "sys/syscall.h" SANDBENCH_HAVE_OPENAT2)
check_symbol_exists(SYS_mount_setattr "sys/syscall.h" SANDBENCH_HAVE_MOUNT_SETATTR)
add_feature_info(Landlock SANDBENCH_HAVE_LANDLOCK_H "write restrictions with Landlock")
add_feature_info(openat2 SANDBENCH_HAVE_OPENAT2 "symlink-safe apply with RESOLVE_BENEATH")
add_feature_info(IdmappedMounts SANDBENCH_HAVE_MOUNT_SETATTR "root sessions over root-owned projects")
configure_file(${CMAKE_CURRENT_LIST_DIR}/config.h.in ${PROJECT_BINARY_DIR}/generated/config.h)
