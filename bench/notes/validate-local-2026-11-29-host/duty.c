#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int c,char**v){double dur=atof(v[1]);size_t mb=atoi(v[2]);double work=atof(v[3])/1e3,idle=atof(v[4])/1e3;int spin=c>5;
 size_t n=mb*1024*1024/8;double*a=malloc(n*8);for(size_t i=0;i<n;i++)a[i]=i;
 double t0=now();unsigned long chunks=0;double worked=0;volatile double s=0;size_t chunk=65536,pos=0;
 while(now()-t0<dur){double w0=now();while(now()-w0<work){double ss=0;for(size_t i=0;i<chunk;i++)ss+=a[pos+i];s+=ss;pos+=chunk;if(pos+chunk>n)pos=0;chunks++;}
  worked+=now()-w0; if(idle>0){ if(spin){double i0=now();while(now()-i0<idle);} else {struct timespec ts={0,(long)(idle*1e9)};nanosleep(&ts,0);} } }
 printf("%.1f\n",chunks/worked);return 0;}
