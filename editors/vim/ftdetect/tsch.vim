" .tsch files are tsch scripts (a Python subset that reads TVMScript).
autocmd BufRead,BufNewFile *.tsch setfiletype tsch
