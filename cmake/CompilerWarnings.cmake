# kbstudio_warnings(target): the warning set every project target is built with.
function(kbstudio_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Woverloaded-virtual
                                           -Wconversion -Wno-sign-conversion -Wimplicit-fallthrough)
endfunction()
