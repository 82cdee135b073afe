/* p_jansson.c — jansson, a DOM (the whole document as a tree: memory grows with it). */
#include "common.h"
#include <jansson.h>
int main(int argc,char**argv){(void)argc;size_t len;char*b=load(argv[1],&len,0);double t=now(); json_error_t e;
 json_t *r=json_loadb(b,len,0,&e); size_t n=json_array_size(json_object_get(r,"traceEvents")); double d=now()-t;
 printf("jansson dom: %.3f s %.0f MB/s (%zu events)\n",d,len/d/1e6,n); return 0;}
