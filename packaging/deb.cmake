# The Debian package pamc (scripts/build-deb.sh builds and checks it; docs/install.md).
# CPack installs the build into /usr: bin/pamc, lib/libpamela.so*, include/pamela,
# share/pamc/{stdlib,machines}, the man page, bash completion, the Python module in
# lib/python3/dist-packages, and share/doc/pamc/{copyright,changelog.Debian.gz}. Library
# dependencies come from dpkg-shlibdeps; what pamc runs (gnuplot for plots) and the
# Python module's interpreter are recommendations, so the command-line tool installs
# without them.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pamc)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "pamc maintainers <pamc@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "compiler of Pamela performance models to closed-form cost models")
set(CPACK_PACKAGE_DESCRIPTION "pamc compiles a Pamela performance model (a parallel program and its machine,
written as processes that use resources) into a closed-form symbolic cost
model, evaluates it, emits it as C++ or Octave, simulates it, explains its
bottlenecks and calibrates its constants from measurements. The package also
holds the embedding library libpamela (C++, CMake package pamela) and the
Python module pamela.")
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
# libpamela's ldconfig run is a dpkg trigger (what Debian wants, not a maintainer-script
# call); the scripts are ours so that CPack does not add the call, and do nothing.
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_CURRENT_LIST_DIR}/triggers ${CMAKE_CURRENT_LIST_DIR}/postinst ${CMAKE_CURRENT_LIST_DIR}/postrm)
if(PAMC_PYTHON AND PAMC_PYTHON_VERSION)  # the module is built for one Python 3.x
  string(REGEX REPLACE "^3\\.([0-9]+)$" "\\1" PAMC_PYTHON_MINOR "${PAMC_PYTHON_VERSION}")
  math(EXPR PAMC_PYTHON_NEXT "${PAMC_PYTHON_MINOR} + 1")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
      "python3 (>= ${PAMC_PYTHON_VERSION}), python3 (<< 3.${PAMC_PYTHON_NEXT}), python3-numpy, gnuplot-nox")
else()
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnuplot-nox")
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "octave, g++")

# Debian's documentation files: the copyright, and the changelog compressed as policy
# wants it (gzip -9, no timestamp, so the package is reproducible).
find_program(GZIP_PROGRAM gzip)
if(GZIP_PROGRAM)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/changelog.Debian.gz
    COMMAND sh -c "'${GZIP_PROGRAM}' -9nc '${CMAKE_CURRENT_LIST_DIR}/changelog' > '${CMAKE_BINARY_DIR}/changelog.Debian.gz'"
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/changelog VERBATIM)
  add_custom_target(pamc_changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/changelog.Debian.gz)
  install(FILES ${CMAKE_BINARY_DIR}/changelog.Debian.gz DESTINATION share/doc/pamc)
endif()
install(FILES ${CMAKE_CURRENT_LIST_DIR}/copyright DESTINATION share/doc/pamc)
# Debian installs man pages compressed; a plain install leaves pamc.1 readable as is.
option(PAMC_DEBIAN_LAYOUT "Install as the Debian package wants it (man pages gzipped)" OFF)
if(PAMC_DEBIAN_LAYOUT)
  install(CODE "execute_process(COMMAND gzip -9nf \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/share/man/man1/pamc.1\" COMMAND_ERROR_IS_FATAL ANY)")
endif()
include(CPack)
