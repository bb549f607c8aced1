" tsch buffers: four-space indents and # comments, as in Python and TVMScript.
if exists("b:did_ftplugin")
  finish
endif
let b:did_ftplugin = 1
setlocal expandtab shiftwidth=4 softtabstop=4 tabstop=8
setlocal comments=b:# commentstring=#\ %s
let b:undo_ftplugin = "setlocal expandtab< shiftwidth< softtabstop< tabstop< comments< commentstring<"
