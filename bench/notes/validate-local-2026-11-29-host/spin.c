#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int c,char**v){double dur=atof(v[1]);volatile unsigned long x=0;double t0=now();unsigned long n=0;
 while(now()-t0<dur){for(int i=0;i<100000;i++)x+=i;n++;}
 printf("%.1f\n",n/dur);return 0;}
