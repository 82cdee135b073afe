/* p_rapidjson.cc — RapidJSON's SAX reader (header-only C++), numbers as text (as yajl hands
 * them to the importer, for exact timestamps). */
#include "common.h"
#include <rapidjson/reader.h>
#include <rapidjson/memorystream.h>
using namespace rapidjson;
struct H : BaseReaderHandler<UTF8<>, H> { long n=0; bool Default(){n++;return true;} bool String(const char*,SizeType,bool){n++;return true;}
 bool Key(const char*,SizeType,bool){return true;} bool RawNumber(const char*,SizeType,bool){n++;return true;} bool StartObject(){return true;} bool EndObject(SizeType){return true;} bool StartArray(){return true;} bool EndArray(SizeType){return true;} };
int main(int argc,char**argv){(void)argc;size_t len;char*b=load(argv[1],&len,0);double t=now(); H h; Reader r; MemoryStream ms(b,len);
 r.Parse<kParseNumbersAsStringsFlag|kParseStopWhenDoneFlag>(ms,h); double d=now()-t; printf("rapidjson sax (numbers as text): %.3f s %.0f MB/s (%ld scalars)%s\n",d,len/d/1e6,h.n,r.HasParseError()?" ERR":""); return 0;}
