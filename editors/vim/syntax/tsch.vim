" Vim syntax for tsch scripts: Python keywords, TVMScript decorators and T./R./I./te.
" builtins, schedule primitives, dtype strings, block names, numbers, strings, comments.
" The primitive list is written by editors/update_primitives.sh from tsch's tvm.tir.Schedule.
if exists("b:current_syntax")
  finish
endif

syn keyword tschKeyword and as assert break class continue def del elif else except finally
syn keyword tschKeyword for from global if import in is lambda nonlocal not or pass raise
syn keyword tschKeyword return try while with yield
syn keyword tschConstant True False None

syn match tschComment "#.*$" contains=@Spell
syn match tschNumber "\<\d\+\(\.\d*\)\=\([eE][+-]\=\d\+\)\=\>"
syn match tschNumber "\.\d\+\([eE][+-]\=\d\+\)\=\>"

" Strings with an optional f/r/b prefix; triple-quoted ones are defined last so that they
" win over an empty "" at the same place.
syn region tschString start=+\(\<[fFrRbB]\{1,2}\)\="+ skip=+\\\\\|\\"+ end=+"+ oneline contains=tschEscape
syn region tschString start=+\(\<[fFrRbB]\{1,2}\)\='+ skip=+\\\\\|\\'+ end=+'+ oneline contains=tschEscape
syn region tschString start=+\(\<[fFrRbB]\{1,2}\)\="""+ end=+"""+ contains=tschEscape
syn region tschString start=+\(\<[fFrRbB]\{1,2}\)\='''+ end=+'''+ contains=tschEscape
syn match tschEscape +\\[abfnrtv'"\\]+ contained

" dtype strings and block names win over plain strings (defined later, same start).
syn match tschDType +\(["']\)\(float\|bfloat\|int\|uint\)\(8\|16\|32\|64\)\1+
syn match tschDType +\(["']\)bool\1+
syn match tschBlockName +\(\<T\.s\=block(\s*\(name\s*=\s*\)\=\)\@<=\(["']\)[^"']*\3+

syn match tschDecorator "@\h[[:alnum:]_.]*"
syn match tschBuiltin "\<\(T\|R\|I\|te\)\.\h\w*\(\.\h\w*\)*"

" tvm.tir.Schedule primitives called as methods (`sch.split(...)`).
syn match tschPrimitive "\.\zs\(add_unit_loop\|annotate\|annotate_buffer_access\|bind\|blockize\|cache_index\|cache_inplace\|cache_read\|cache_write\|can_decompose_padding\|compute_at\|compute_inline\|decompose_padding\|decompose_reduction\|enter_postproc\|fuse\|fuse_reduction_epilogue\|get_block\|get_child_blocks\|get_consumers\|get_loops\|get_output_blocks\|get_producers\|get_sblock\|get_sref\|loop_partition\|merge\|pad_einsum\|parallel\|read_at\|reindex\|reindex_cache_read\|reindex_cache_write\|remove_rv\|reorder\|reorder_block_iter_var\|reverse_compute_at\|reverse_compute_inline\|rfactor\|rolling_buffer\|sample_categorical\|sample_compute_location\|sample_partitioned_tile\|sample_perfect_tile\|set_axis_separator\|set_scope\|split\|state\|storage_align\|tensorize\|transform_block_layout\|transform_layout\|unannotate\|unroll\|unsafe_set_dtype\|vectorize\|write_at\)\ze\s*("

hi def link tschKeyword Statement
hi def link tschConstant Constant
hi def link tschComment Comment
hi def link tschNumber Number
hi def link tschString String
hi def link tschEscape Special
hi def link tschDType Type
hi def link tschBlockName Label
hi def link tschDecorator PreProc
hi def link tschBuiltin Function
hi def link tschPrimitive Identifier

let b:current_syntax = "tsch"
