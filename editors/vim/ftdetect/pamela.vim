" Pamela performance models (pamc): *.pam files.
autocmd BufNewFile,BufRead *.pam setfiletype pamela
