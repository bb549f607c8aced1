" tsch indents like Python: reuse Vim's Python indent rules.
if exists("b:did_indent")
  finish
endif
runtime! indent/python.vim
