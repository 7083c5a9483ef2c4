for i in 1 2 3 4 5 6 7; do bash /tmp/gapy/form.sh one O$i; bash /tmp/gapy/form.sh sep S$i; done
echo finished > /tmp/gapy/ALLDONE
