/* p_yajl.c — yajl 2 (what src/interop/ssi_kineto_parse.c uses), SAX with callbacks that only
 * count: the floor of any yajl-based import. */
#include "common.h"
#include <yajl/yajl_parse.h>
static long n;
static int c_null(void *c){(void)c;n++;return 1;} static int c_bool(void *c,int v){(void)c;(void)v;n++;return 1;}
static int c_num(void *c,const char *s,size_t l){(void)c;(void)s;(void)l;n++;return 1;}
static int c_str(void *c,const unsigned char *s,size_t l){(void)c;(void)s;(void)l;n++;return 1;}
static int c_sm(void *c){(void)c;return 1;} static int c_key(void *c,const unsigned char *s,size_t l){(void)c;(void)s;(void)l;return 1;}
static int c_em(void *c){(void)c;return 1;}
static yajl_callbacks cb={c_null,c_bool,NULL,NULL,c_num,c_str,c_sm,c_key,c_em,c_sm,c_em};
int main(int argc,char**argv){(void)argc;size_t len;char*b=load(argv[1],&len,0);double t=now();
 yajl_handle h=yajl_alloc(&cb,NULL,NULL); for(size_t o=0;o<len;o+=65536){size_t k=len-o<65536?len-o:65536; if(yajl_parse(h,(unsigned char*)b+o,k)!=yajl_status_ok){puts("err");return 1;}}
 yajl_complete_parse(h); double d=now()-t; printf("yajl sax: %.3f s %.0f MB/s (%ld scalars)\n",d,len/d/1e6,n); return 0;}
