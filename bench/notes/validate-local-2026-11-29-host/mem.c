#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int c,char**v){double dur=atof(v[1]);size_t mb=atoi(v[2]);size_t n=mb*1024*1024/8;double*a=malloc(n*8);for(size_t i=0;i<n;i++)a[i]=i;
 double t0=now();unsigned long p=0;volatile double s=0;size_t chunk=65536;size_t pos=0;unsigned long chunks=0;
 while(now()-t0<dur){double ss=0;for(size_t i=0;i<chunk;i++)ss+=a[pos+i];s+=ss;pos+=chunk;if(pos+chunk>n)pos=0;chunks++;}
 printf("%.1f\n",chunks/dur);return 0;}
