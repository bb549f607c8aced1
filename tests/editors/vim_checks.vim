" Run by vim_test.sh inside headless Vim: asserts the syntax group at chosen places of
" the sample file, then that every T./R./I./te. builtin, decorator and schedule primitive
" call in each file of examples/ is highlighted as one. Failures go to g:out_file.
let s:failures = []

function! s:GroupAt(line, col) abort
  return synIDattr(synID(a:line, a:col, 1), 'name')
endfunction

" The group at the first occurrence of `text` (plus `offset` columns).
function! s:Check(text, group, ...) abort
  let offset = a:0 > 0 ? a:1 : 0
  call cursor(1, 1)
  let pos = searchpos('\V' . escape(a:text, '\'), 'cW')
  if pos == [0, 0]
    call add(s:failures, 'not found in sample: ' . a:text)
    return
  endif
  let got = s:GroupAt(pos[0], pos[1] + offset)
  if got !=# a:group
    call add(s:failures, printf('%s (line %d): expected %s, got %s', a:text, pos[0], a:group, got))
  endif
endfunction

execute 'edit ' . fnameescape(g:sample_file)
if &filetype !=# 'tsch'
  call add(s:failures, 'filetype of a .tsch file is "' . &filetype . '", expected tsch')
endif
syntax sync fromstart
call s:Check('import tvm', 'tschKeyword')
call s:Check('@T.prim_func', 'tschDecorator')
call s:Check('@tvm.script.ir_module', 'tschDecorator')
call s:Check('T.Buffer', 'tschBuiltin')
call s:Check('T.grid', 'tschBuiltin')
call s:Check('T.axis.remap', 'tschBuiltin', 7)
call s:Check('"float32"', 'tschDType')
call s:Check('"float16")', 'tschDType')
call s:Check('"B_copy"', 'tschBlockName')
call s:Check('"SS"', 'tschString')
call s:Check('"global_symbol"', 'tschString')
call s:Check('True})', 'tschConstant')
call s:Check('128, 128), "float32"', 'tschNumber')
call s:Check('0.5', 'tschNumber')
call s:Check('3e-5', 'tschNumber')
call s:Check('get_loops(', 'tschPrimitive')
call s:Check('split(j', 'tschPrimitive')
call s:Check('get_block("B_copy"))', 'tschPrimitive')
call s:Check('# A sample', 'tschComment')
call s:Check('# inside a string', 'tschString')
call s:Check('f"split', 'tschString')
call s:Check('{len', 'tschString')
call s:Check('quoted"""', 'tschString')
call s:Check('# nested brackets', 'tschComment')
call s:Check('class Module', 'tschKeyword')

" Indentation after a ':' and back after return, Python-like, four spaces.
enew
setfiletype tsch
call setline(1, ['def f(n):', 'for i in range(n):', 'with T.block("B"):', 'pass'])
normal! gg=G
let s:want = [0, 4, 8, 12]
for s:k in range(len(s:want))
  if indent(s:k + 1) != s:want[s:k]
    call add(s:failures, printf('indent of line %d (%s): expected %d, got %d', s:k + 1, getline(s:k + 1), s:want[s:k], indent(s:k + 1)))
  endif
endfor
bwipeout!

" Every example: builtins, decorators and primitive calls are never left unscoped.
for s:file in g:example_files
  execute 'edit ' . fnameescape(s:file)
  syntax sync fromstart
  for s:lnum in range(1, line('$'))
    let s:text = getline(s:lnum)
    for [s:pattern, s:group] in [['\<\(T\|R\|I\|te\)\.\h', 'tschBuiltin'], ['^\s*\zs@\h', 'tschDecorator'],
          \ ['\<sch\.\zs\h\w*\ze(', 'tschPrimitive']]
      let s:start = 0
      while 1
        let s:col = match(s:text, s:pattern, s:start)
        if s:col < 0
          break
        endif
        let s:got = s:GroupAt(s:lnum, s:col + 1)
        let s:word = matchstr(s:text, '\h[[:alnum:]_.]*', s:col)
        let s:method_ok = s:group !=# 'tschPrimitive' || index(g:primitives, s:word) >= 0
        if s:got !=# s:group && index(['tschComment', 'tschString', 'tschDecorator'], s:got) < 0 && s:method_ok
          call add(s:failures, printf('%s:%d:%d: %s is %s, expected %s', s:file, s:lnum, s:col + 1, s:word, s:got, s:group))
        endif
        let s:start = s:col + 1
      endwhile
    endfor
  endfor
endfor

call writefile(s:failures, g:out_file)
qall!
