/* p_json-c.c — json-c, a DOM (the whole document as a tree: memory grows with it). */
#include "common.h"
#include <json-c/json.h>
int main(int argc,char**argv){(void)argc;size_t len;char*b=load(argv[1],&len,0);double t=now();
 json_tokener *tk=json_tokener_new_ex(64); json_object *r=json_tokener_parse_ex(tk,b,(int)len); json_object *ev; json_object_object_get_ex(r,"traceEvents",&ev);
 size_t n=json_object_array_length(ev); double d=now()-t; printf("json-c dom: %.3f s %.0f MB/s (%zu events)\n",d,len/d/1e6,n); return 0;}
