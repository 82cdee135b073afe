/* p_simdjson.cc — simdjson On-Demand (C++): every traceEvents member's key and raw value token
 * (what the importer reads); the whole document must be in memory, padded. Built with
 * -march=native: On-Demand's kernel is chosen when it is compiled, not at run time. */
#include "common.h"
#include <simdjson.h>
using namespace simdjson;
int main(int argc,char**argv){(void)argc;padded_string s=padded_string::load(argv[1]).value(); size_t len=s.size(); double t=now();
 ondemand::parser p; ondemand::document doc=p.iterate(s); long n=0, f=0;
 for (auto field : doc.get_object()) { std::string_view k=field.unescaped_key(); if (k!="traceEvents") { continue; }
   for (auto ev : field.value().get_array()) { for (auto m : ev.get_object()) { std::string_view key=m.unescaped_key(); (void)key; std::string_view raw=m.value().raw_json_token(); (void)raw; f++; } n++; } }
 double d=now()-t; printf("simdjson ondemand (every member's key and raw token): %.3f s %.0f MB/s (%ld events, %ld members)\n",d,len/d/1e6,n,f); return 0;}
