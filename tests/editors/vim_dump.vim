" Writes, for every file on the command line, its filetype and the syntax item under each
" character (as runs: COLUMN:NAME where the name changes) to the file $VDUMP.
" Run by check_editors.py: vim -es -N -u NONE -i NONE --cmd 'set rtp^=editors/vim'
"   -c 'filetype on' -c 'syntax on' -S tests/editors/vim_dump.vim FILE...
for f in argv()
  execute 'edit ' . fnameescape(f)
  let out = ['FILE ' . &filetype . ' ' . fnamemodify(f, ':p')]
  for l in range(1, line('$'))
    let row = []
    let prev = ''
    for c in range(1, strlen(getline(l)))
      let name = synIDattr(synID(l, c, 1), 'name')
      if name !=# prev
        call add(row, c . ':' . name)
        let prev = name
      endif
    endfor
    call add(out, join(row, ' '))
  endfor
  call writefile(out, $VDUMP, 'a')
endfor
qall!
