divl %ecx
addl %eax, %ebx
imull %ebx, %esi
