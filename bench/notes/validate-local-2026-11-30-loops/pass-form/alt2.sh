for i in 11 12 13 14 15 16; do bash /tmp/gapy/form.sh one O$i; bash /tmp/gapy/form.sh run R$i; bash /tmp/gapy/form.sh sep S$i; done
echo finished > /tmp/gapy/ALLDONE2
