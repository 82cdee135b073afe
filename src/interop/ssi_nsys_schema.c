/* ssi_nsys_schema.c — the schema of `nsys export --type sqlite` (Nsight Systems 2025.3.1) and the
 * rows of the enum tables stepscope fills.
 *
 * The CREATE TABLE statements are verbatim from a real export (../shared/anchors/
 * nsys-2025.3.1-sqlite-schema.sql, comments included, so `.schema` of an exported file reads as
 * nsys's own). Enum ids and names: Nsight Systems' "SQLite Schema Event Values" (Analysis Guide);
 * labels as a real export (nsys 2024.6) stores them. bench/interop/nsys_check.sh diffs these
 * rows against a fresh nsys export on the GPU machine. */
#include "interop/ssi_nsys.h"

const char *const ssi_nsys_schema[] = {
    "CREATE TABLE StringIds (\n"
    "    -- Consolidation of repetitive string values.\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- ID reference value.\n"
    "    value                       TEXT      NOT NULL                     -- String value.\n"
    ");\n",
    "CREATE TABLE ANALYSIS_FILE (\n"
    "    -- Analysis file content\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- ID reference value.\n"
    "    filename                    TEXT,                                  -- File path\n"
    "    contentId                   INTEGER,                               -- REFERENCES StringIds(id) -- File content\n"
    "    globalPid                   INTEGER   NOT NULL                     -- Serialized GlobalId.\n"
    ");\n",
    "CREATE TABLE ProcessStreams (\n"
    "    globalPid                   INTEGER   NOT NULL,                    -- Serialized GlobalId.\n"
    "    filenameId                  INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- File name\n"
    "    contentId                   INTEGER   NOT NULL                     -- REFERENCES StringIds(id) -- Stream content\n"
    ");\n",
    "CREATE TABLE TARGET_INFO_SYSTEM_ENV (\n"
    "    globalVid                   INTEGER,                               -- Serialized GlobalId.\n"
    "    devStateName                TEXT      NOT NULL,                    -- Device state name.\n"
    "    name                        TEXT      NOT NULL,                    -- Property name.\n"
    "    nameEnum                    INTEGER   NOT NULL,                    -- Property enum value.\n"
    "    value                       TEXT      NOT NULL                     -- Property value.\n"
    ");\n",
    "CREATE TABLE TARGET_INFO_SESSION_START_TIME (\n"
    "    utcEpochNs                  INTEGER,                               -- UTC Epoch timestamp at start of the capture (ns).\n"
    "    utcTime                     TEXT,                                  -- Start of the capture in UTC.\n"
    "    localTime                   TEXT                                   -- Start of the capture in local time of target.\n"
    ");\n",
    "CREATE TABLE ANALYSIS_DETAILS (\n"
    "    -- Details about the analysis session.\n"
    "\n"
    "    globalVid                   INTEGER   NOT NULL,                    -- Serialized GlobalId.\n"
    "    duration                    INTEGER   NOT NULL,                    -- The total time span of the entire trace (ns).\n"
    "    startTime                   INTEGER   NOT NULL,                    -- Trace start timestamp in nanoseconds.\n"
    "    stopTime                    INTEGER   NOT NULL                     -- Trace stop timestamp in nanoseconds.\n"
    ");\n",
    "CREATE TABLE DIAGNOSTIC_EVENT (\n"
    "    timestamp                   INTEGER   NOT NULL,                    -- Event timestamp (ns).\n"
    "    timestampType               INTEGER   NOT NULL,                    -- REFERENCES ENUM_DIAGNOSTIC_TIMESTAMP_SOURCE(id)\n"
    "    source                      INTEGER   NOT NULL,                    -- REFERENCES ENUM_DIAGNOSTIC_SOURCE_TYPE(id)\n"
    "    severity                    INTEGER   NOT NULL,                    -- REFERENCES ENUM_DIAGNOSTIC_SEVERITY_LEVEL(id)\n"
    "    text                        TEXT      NOT NULL,                    -- Diagnostic message text\n"
    "    globalPid                   INTEGER                                -- Serialized GlobalId.\n"
    ");\n",
    "CREATE TABLE PROFILER_OVERHEAD (\n"
    "    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).\n"
    "    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).\n"
    "    globalTid                   INTEGER,                               -- Serialized GlobalId.\n"
    "    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Function name\n"
    "    returnValue                 INTEGER   NOT NULL                     -- Return value of the function call.\n"
    ");\n",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (\n"
    "    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).\n"
    "    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).\n"
    "    eventClass                  INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_CLASS(id)\n"
    "    globalTid                   INTEGER,                               -- Serialized GlobalId.\n"
    "    correlationId               INTEGER,                               -- ID used to identify events that this function call has triggered.\n"
    "    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Function name\n"
    "    returnValue                 INTEGER   NOT NULL,                    -- Return value of the function call.\n"
    "    callchainId                 INTEGER                                -- REFERENCES CUDA_CALLCHAINS(id)\n"
    ");\n",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (\n"
    "    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).\n"
    "    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).\n"
    "    deviceId                    INTEGER   NOT NULL,                    -- Device ID.\n"
    "    contextId                   INTEGER   NOT NULL,                    -- Context ID.\n"
    "    greenContextId              INTEGER,                               -- Green context ID.\n"
    "    streamId                    INTEGER   NOT NULL,                    -- Stream ID.\n"
    "    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)\n"
    "    globalPid                   INTEGER,                               -- Serialized GlobalId.\n"
    "    bytes                       INTEGER   NOT NULL,                    -- Number of bytes transferred (B).\n"
    "    copyKind                    INTEGER   NOT NULL,                    -- REFERENCES ENUM_CUDA_MEMCPY_OPER(id)\n"
    "    deprecatedSrcId             INTEGER,                               -- Deprecated, use srcDeviceId instead.\n"
    "    srcKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)\n"
    "    dstKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)\n"
    "    srcDeviceId                 INTEGER,                               -- Source device ID.\n"
    "    srcContextId                INTEGER,                               -- Source context ID.\n"
    "    dstDeviceId                 INTEGER,                               -- Destination device ID.\n"
    "    dstContextId                INTEGER,                               -- Destination context ID.\n"
    "    migrationCause              INTEGER,                               -- REFERENCES ENUM_CUDA_UNIF_MEM_MIGRATION(id)\n"
    "    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)\n"
    "    virtualAddress              INTEGER,                               -- Virtual base address of the page/s being transferred.\n"
    "    copyCount                   INTEGER                                -- The total number of memcopy operations traced in this record. In CUDA MemcpyBatchAsync APIs, multiple memcpy operations may be batched together for optimization purposes based on certain heuristics.\n"
    ");\n",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (\n"
    "    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).\n"
    "    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).\n"
    "    deviceId                    INTEGER   NOT NULL,                    -- Device ID.\n"
    "    contextId                   INTEGER   NOT NULL,                    -- Context ID.\n"
    "    greenContextId              INTEGER,                               -- Green context ID.\n"
    "    streamId                    INTEGER   NOT NULL,                    -- Stream ID.\n"
    "    correlationId               INTEGER,                               -- Correlation ID of the synchronization API to which this result is associated.\n"
    "    globalPid                   INTEGER,                               -- Serialized GlobalId.\n"
    "    deprecatedSyncType          INTEGER,                               -- Deprecated, use syncType instead. For older report, REFERENCES ENUM_CUPTI_SYNC_TYPE(id)\n"
    "    syncType                    INTEGER   NOT NULL,                    -- REFERENCES ENUM_CUPTI_SYNC_TYPE(id)\n"
    "    eventId                     INTEGER   NOT NULL,                    -- Event ID for which the synchronization API is called.\n"
    "    eventSyncId                 INTEGER                                -- CUDA Event Sync ID to link the synchronization API to associated event record API.\n"
    ");\n",
    "CREATE TABLE NVTX_EVENTS (\n"
    "    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).\n"
    "    end                         INTEGER,                               -- Event end timestamp (ns).\n"
    "    eventType                   INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_TYPE(id)\n"
    "    rangeId                     INTEGER,                               -- Correlation ID returned from a nvtxRangeStart call.\n"
    "    category                    INTEGER,                               -- User-controlled ID that can be used to group events.\n"
    "    color                       INTEGER,                               -- Encoded ARGB color value.\n"
    "    text                        TEXT,                                  -- Explicit name/text (non-registered string)\n"
    "    globalTid                   INTEGER,                               -- Serialized GlobalId.\n"
    "    endGlobalTid                INTEGER,                               -- Serialized GlobalId.\n"
    "    textId                      INTEGER,                               -- REFERENCES StringIds(id) -- Registered NVTX domain/string\n"
    "    domainId                    INTEGER,                               -- User-controlled ID that can be used to group events.\n"
    "    uint64Value                 INTEGER,                               -- One of possible payload value union members.\n"
    "    int64Value                  INTEGER,                               -- One of possible payload value union members.\n"
    "    doubleValue                 REAL,                                  -- One of possible payload value union members.\n"
    "    uint32Value                 INTEGER,                               -- One of possible payload value union members.\n"
    "    int32Value                  INTEGER,                               -- One of possible payload value union members.\n"
    "    floatValue                  REAL,                                  -- One of possible payload value union members.\n"
    "    jsonTextId                  INTEGER,                               -- One of possible payload value union members.\n"
    "    jsonText                    TEXT,                                  -- One of possible payload value union members.\n"
    "    binaryData                  TEXT                                   -- Binary payload. See docs for format.\n"
    ");\n",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (\n"
    "    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).\n"
    "    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).\n"
    "    deviceId                    INTEGER   NOT NULL,                    -- Device ID.\n"
    "    contextId                   INTEGER   NOT NULL,                    -- Context ID.\n"
    "    greenContextId              INTEGER,                               -- Green context ID.\n"
    "    streamId                    INTEGER   NOT NULL,                    -- Stream ID.\n"
    "    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)\n"
    "    globalPid                   INTEGER,                               -- Serialized GlobalId.\n"
    "    value                       INTEGER   NOT NULL,                    -- Value assigned to memory.\n"
    "    bytes                       INTEGER   NOT NULL,                    -- Number of bytes set (B).\n"
    "    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)\n"
    "    memKind                     INTEGER                                -- REFERENCES ENUM_CUDA_MEM_KIND(id)\n"
    ");\n",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (\n"
    "    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).\n"
    "    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).\n"
    "    deviceId                    INTEGER   NOT NULL,                    -- Device ID.\n"
    "    contextId                   INTEGER   NOT NULL,                    -- Context ID.\n"
    "    greenContextId              INTEGER,                               -- Green context ID.\n"
    "    streamId                    INTEGER   NOT NULL,                    -- Stream ID.\n"
    "    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)\n"
    "    globalPid                   INTEGER,                               -- Serialized GlobalId.\n"
    "    demangledName               INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Kernel function name w/ templates\n"
    "    shortName                   INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Base kernel function name\n"
    "    mangledName                 INTEGER,                               -- REFERENCES StringIds(id) -- Raw C++ mangled kernel function name\n"
    "    launchType                  INTEGER,                               -- REFERENCES ENUM_CUDA_KERNEL_LAUNCH_TYPE(id)\n"
    "    cacheConfig                 INTEGER,                               -- REFERENCES ENUM_CUDA_FUNC_CACHE_CONFIG(id)\n"
    "    registersPerThread          INTEGER   NOT NULL,                    -- Number of registers required for each thread executing the kernel.\n"
    "    gridX                       INTEGER   NOT NULL,                    -- X-dimension grid size.\n"
    "    gridY                       INTEGER   NOT NULL,                    -- Y-dimension grid size.\n"
    "    gridZ                       INTEGER   NOT NULL,                    -- Z-dimension grid size.\n"
    "    blockX                      INTEGER   NOT NULL,                    -- X-dimension block size.\n"
    "    blockY                      INTEGER   NOT NULL,                    -- Y-dimension block size.\n"
    "    blockZ                      INTEGER   NOT NULL,                    -- Z-dimension block size.\n"
    "    staticSharedMemory          INTEGER   NOT NULL,                    -- Static shared memory allocated for the kernel (B).\n"
    "    dynamicSharedMemory         INTEGER   NOT NULL,                    -- Dynamic shared memory reserved for the kernel (B).\n"
    "    localMemoryPerThread        INTEGER   NOT NULL,                    -- Amount of local memory reserved for each thread (B).\n"
    "    localMemoryTotal            INTEGER   NOT NULL,                    -- Total amount of local memory reserved for the kernel (B).\n"
    "    gridId                      INTEGER   NOT NULL,                    -- Unique grid ID of the kernel assigned at runtime.\n"
    "    sharedMemoryExecuted        INTEGER,                               -- Shared memory size set by the driver.\n"
    "    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)\n"
    "    sharedMemoryLimitConfig     INTEGER                                -- REFERENCES ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG(id)\n"
    ");\n",
    "CREATE TABLE PROCESSES (\n"
    "    -- Names and identifiers of processes captured in the report.\n"
    "\n"
    "    globalPid                   INTEGER,                               -- Serialized GlobalId.\n"
    "    pid                         INTEGER,                               -- The process ID.\n"
    "    name                        TEXT                                   -- The process name.\n"
    ");\n",
    "CREATE TABLE ThreadNames (\n"
    "    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Thread name\n"
    "    priority                    INTEGER,                               -- Priority of the thread.\n"
    "    globalTid                   INTEGER                                -- Serialized GlobalId.\n"
    ");\n",
    "CREATE TABLE TARGET_INFO_GPU (\n"
    "    vmId                        INTEGER   NOT NULL,                    -- Serialized GlobalId.\n"
    "    id                          INTEGER   NOT NULL,                    -- Device ID.\n"
    "    name                        TEXT,                                  -- Device name.\n"
    "    busLocation                 TEXT,                                  -- PCI bus location.\n"
    "    isDiscrete                  INTEGER,                               -- True if discrete, false if integrated.\n"
    "    l2CacheSize                 INTEGER,                               -- Size of L2 cache (B).\n"
    "    totalMemory                 INTEGER,                               -- Total amount of memory on the device (B).\n"
    "    memoryBandwidth             INTEGER,                               -- Amount of memory transferred (B).\n"
    "    clockRate                   INTEGER,                               -- Clock frequency (Hz).\n"
    "    smCount                     INTEGER,                               -- Number of multiprocessors on the device.\n"
    "    pwGpuId                     INTEGER,                               -- PerfWorks GPU ID.\n"
    "    uuid                        TEXT,                                  -- Device UUID.\n"
    "    luid                        INTEGER,                               -- Device LUID.\n"
    "    chipName                    TEXT,                                  -- Chip name.\n"
    "    cuDevice                    INTEGER,                               -- CUDA device ID.\n"
    "    ctxswDevPath                TEXT,                                  -- GPU context switch device node path.\n"
    "    ctrlDevPath                 TEXT,                                  -- GPU control device node path.\n"
    "    revision                    INTEGER,                               -- Revision number.\n"
    "    nodeMask                    INTEGER,                               -- Device node mask.\n"
    "    constantMemory              INTEGER,                               -- Memory available on device for __constant__ variables (B).\n"
    "    maxIPC                      INTEGER,                               -- Maximum instructions per count.\n"
    "    maxRegistersPerBlock        INTEGER,                               -- Maximum number of 32-bit registers available per block.\n"
    "    maxShmemPerBlock            INTEGER,                               -- Maximum optin shared memory per block.\n"
    "    maxShmemPerBlockOptin       INTEGER,                               -- Maximum optin shared memory per block.\n"
    "    maxShmemPerSm               INTEGER,                               -- Maximum shared memory available per multiprocessor (B).\n"
    "    maxRegistersPerSm           INTEGER,                               -- Maximum number of 32-bit registers available per multiprocessor.\n"
    "    threadsPerWarp              INTEGER,                               -- Warp size in threads.\n"
    "    asyncEngines                INTEGER,                               -- Number of asynchronous engines.\n"
    "    maxWarpsPerSm               INTEGER,                               -- Maximum number of warps per multiprocessor.\n"
    "    maxBlocksPerSm              INTEGER,                               -- Maximum number of blocks per multiprocessor.\n"
    "    maxThreadsPerBlock          INTEGER,                               -- Maximum number of threads per block.\n"
    "    maxBlockDimX                INTEGER,                               -- Maximum X-dimension of a block.\n"
    "    maxBlockDimY                INTEGER,                               -- Maximum Y-dimension of a block.\n"
    "    maxBlockDimZ                INTEGER,                               -- Maximum Z-dimension of a block.\n"
    "    maxGridDimX                 INTEGER,                               -- Maximum X-dimension of a grid.\n"
    "    maxGridDimY                 INTEGER,                               -- Maximum Y-dimension of a grid.\n"
    "    maxGridDimZ                 INTEGER,                               -- Maximum Z-dimension of a grid.\n"
    "    computeMajor                INTEGER,                               -- Major compute capability version number.\n"
    "    computeMinor                INTEGER,                               -- Minor compute capability version number.\n"
    "    smMajor                     INTEGER,                               -- Major multiprocessor version number.\n"
    "    smMinor                     INTEGER                                -- Minor multiprocessor version number.\n"
    ");\n",
    "CREATE TABLE TARGET_INFO_CUDA_DEVICE (\n"
    "    gpuId                       INTEGER,                               -- GPU ID.\n"
    "    cudaId                      INTEGER   NOT NULL,                    -- CUDA device ID.\n"
    "    pid                         INTEGER   NOT NULL                     -- Process ID.\n"
    ");\n",
    "CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (\n"
    "    nullStreamId                INTEGER   NOT NULL,                    -- Stream ID.\n"
    "    hwId                        INTEGER   NOT NULL,                    -- Hardware ID.\n"
    "    vmId                        INTEGER   NOT NULL,                    -- VM ID.\n"
    "    processId                   INTEGER   NOT NULL,                    -- Process ID.\n"
    "    deviceId                    INTEGER   NOT NULL,                    -- Device ID.\n"
    "    contextId                   INTEGER   NOT NULL,                    -- Context ID.\n"
    "    parentContextId             INTEGER,                               -- For green context, this is the parent context id.\n"
    "    isGreenContext              INTEGER                                -- Is this a Green Context?\n"
    ");\n",
    "CREATE TABLE TARGET_INFO_CUDA_STREAM (\n"
    "    streamId                    INTEGER   NOT NULL,                    -- Stream ID.\n"
    "    hwId                        INTEGER   NOT NULL,                    -- Hardware ID.\n"
    "    vmId                        INTEGER   NOT NULL,                    -- VM ID.\n"
    "    processId                   INTEGER   NOT NULL,                    -- Process ID.\n"
    "    contextId                   INTEGER   NOT NULL,                    -- Context ID.\n"
    "    priority                    INTEGER   NOT NULL,                    -- Priority of the stream.\n"
    "    flag                        INTEGER   NOT NULL                     -- REFERENCES ENUM_CUPTI_STREAM_TYPE(id)\n"
    ");\n",
    "CREATE TABLE ENUM_NSYS_EVENT_TYPE (\n"
    "    -- Nsys event type labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_NSYS_EVENT_CLASS (\n"
    "    -- Nsys event class labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_NSYS_GENERIC_EVENT_SOURCE (\n"
    "    -- Nsys generic event source labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_NSYS_GENERIC_EVENT_GROUP (\n"
    "    -- Nsys generic event group labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_NSYS_GENERIC_EVENT_FIELD_TYPE (\n"
    "    -- Nsys generic event field type labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_PROPERTY (\n"
    "    -- Nsys generic event field ETW property flag labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_TYPE (\n"
    "    -- Nsys generic event field ETW type labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_NSYS_GENERIC_EVENT_FIELD_ETW_FLAGS (\n"
    "    -- Nsys generic event field ETW map info flag labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_CUDA_MEMCPY_OPER (\n"
    "    -- CUDA memcpy operation labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_CUDA_MEM_KIND (\n"
    "    -- CUDA memory kind labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_CUDA_MEMPOOL_TYPE (\n"
    "    -- CUDA mempool type labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_CUDA_MEMPOOL_OPER (\n"
    "    -- CUDA mempool operation labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_CUDA_DEV_MEM_EVENT_OPER (\n"
    "    -- CUDA device mem event operation labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_CUDA_KERNEL_LAUNCH_TYPE (\n"
    "    -- CUDA kernel launch type labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG (\n"
    "    -- CUDA shared memory limit config labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_CUDA_UNIF_MEM_MIGRATION (\n"
    "    -- CUDA unified memory migration cause labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_CUDA_UNIF_MEM_ACCESS_TYPE (\n"
    "    -- CUDA unified memory access type labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_CUDA_FUNC_CACHE_CONFIG (\n"
    "    -- CUDA function cache config labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_CUPTI_STREAM_TYPE (\n"
    "    -- CUPTI stream type labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_CUPTI_SYNC_TYPE (\n"
    "    -- CUPTI synchronization type labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_DIAGNOSTIC_SEVERITY_LEVEL (\n"
    "    -- Diagnostic message severity level labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_DIAGNOSTIC_SOURCE_TYPE (\n"
    "    -- Diagnostic message source type labels\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE ENUM_DIAGNOSTIC_TIMESTAMP_SOURCE (\n"
    "    -- Diagnostic message timestamp source lables\n"
    "\n"
    "    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.\n"
    "    name                        TEXT,                                  -- Enum symbol name.\n"
    "    label                       TEXT                                   -- Enum human name.\n"
    ");\n",
    "CREATE TABLE META_DATA_CAPTURE (\n"
    "    -- information about nsys capture parameters\n"
    "\n"
    "    name                        TEXT      NOT NULL,                    -- Name of meta-data record\n"
    "    value                       TEXT                                   -- Value of meta-data record\n"
    ");\n",
    "CREATE TABLE META_DATA_EXPORT (\n"
    "    -- information about nsys export process\n"
    "\n"
    "    name                        TEXT      NOT NULL,                    -- Name of meta-data record\n"
    "    value                       TEXT                                   -- Value of meta-data record\n"
    ");\n",
};
const size_t ssi_nsys_n_schema = sizeof ssi_nsys_schema / sizeof *ssi_nsys_schema;

#define MEMCPY(id, n, l) {"ENUM_CUDA_MEMCPY_OPER", id, "CUDA_MEMCPY_KIND_" n, l}
#define MEMKIND(id, n, l) {"ENUM_CUDA_MEM_KIND", id, "CUDA_MEMOPR_MEMORY_KIND_" n, l}
#define SYNC(id, n, l) {"ENUM_CUPTI_SYNC_TYPE", id, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_" n, l}
#define EVTYPE(id, n) {"ENUM_NSYS_EVENT_TYPE", id, n, n}

const struct ssi_nsys_enum_row ssi_nsys_enum_rows[] = {
    MEMCPY(0, "UNKNOWN", "Unknown"),
    MEMCPY(1, "HTOD", "Host-to-Device"),
    MEMCPY(2, "DTOH", "Device-to-Host"),
    MEMCPY(3, "HTOA", "Host-to-Array"),
    MEMCPY(4, "ATOH", "Array-to-Host"),
    MEMCPY(5, "ATOA", "Array-to-Array"),
    MEMCPY(6, "ATOD", "Array-to-Device"),
    MEMCPY(7, "DTOA", "Device-to-Array"),
    MEMCPY(8, "DTOD", "Device-to-Device"),
    MEMCPY(9, "HTOH", "Host-to-Host"),
    MEMCPY(10, "PTOP", "Peer-to-Peer"),
    MEMCPY(11, "UVM_HTOD", "Unified Host-to-Device"),
    MEMCPY(12, "UVM_DTOH", "Unified Device-to-Host"),
    MEMCPY(13, "UVM_DTOD", "Unified Device-to-Device"),
    MEMKIND(0, "PAGEABLE", "Pageable"),
    MEMKIND(1, "PINNED", "Pinned"),
    MEMKIND(2, "DEVICE", "Device"),
    MEMKIND(3, "ARRAY", "Array"),
    MEMKIND(4, "MANAGED", "Managed"),
    MEMKIND(5, "DEVICE_STATIC", "Device Static"),
    MEMKIND(6, "MANAGED_STATIC", "Managed Static"),
    MEMKIND(7, "UNKNOWN", "Unknown"),
    SYNC(0, "UNKNOWN", "Unknown"),
    SYNC(1, "EVENT_SYNCHRONIZE", "Event sync"),
    SYNC(2, "STREAM_WAIT_EVENT", "Stream wait sync"),
    SYNC(3, "STREAM_SYNCHRONIZE", "Stream sync"),
    SYNC(4, "CONTEXT_SYNCHRONIZE", "Context sync"),
    EVTYPE(SSI_NSYS_NVTX_CATEGORY, "NvtxCategory"),
    EVTYPE(SSI_NSYS_NVTX_MARK, "NvtxMark"),
    EVTYPE(SSI_NSYS_NVTX_THREAD, "NvtxThread"),
    EVTYPE(SSI_NSYS_NVTX_PUSHPOP, "NvtxPushPopRange"),
    EVTYPE(SSI_NSYS_NVTX_STARTEND, "NvtxStartEndRange"),
    EVTYPE(SSI_NSYS_NVTXT_PUSHPOP, "NvtxtPushPopRange"),
    EVTYPE(SSI_NSYS_NVTXT_STARTEND, "NvtxtStartEndRange"),
    EVTYPE(SSI_NSYS_NVTX_DOMAIN_CREATE, "NvtxDomainCreate"),
    EVTYPE(SSI_NSYS_NVTX_DOMAIN_DESTROY, "NvtxDomainDestroy"),
    {"ENUM_NSYS_EVENT_CLASS", SSI_NSYS_CLASS_CUDA_RUNTIME, "TRACE_PROCESS_EVENT_CUDA_RUNTIME",
     "CUDA runtime"},
    {"ENUM_NSYS_EVENT_CLASS", SSI_NSYS_CLASS_CUDA_DRIVER, "TRACE_PROCESS_EVENT_CUDA_DRIVER",
     "CUDA driver"},
    {"ENUM_CUDA_KERNEL_LAUNCH_TYPE", 0, "CUDA_KERNEL_LAUNCH_TYPE_UNKNOWN", "Unknown"},
    {"ENUM_CUDA_KERNEL_LAUNCH_TYPE", SSI_NSYS_LAUNCH_REGULAR, "CUDA_KERNEL_LAUNCH_TYPE_REGULAR",
     "Regular"},
    {"ENUM_CUDA_KERNEL_LAUNCH_TYPE", SSI_NSYS_LAUNCH_COOP_SINGLE,
     "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE", "Coop Single Device"},
    {"ENUM_DIAGNOSTIC_SEVERITY_LEVEL", 1, "Info", "Info"},
    {"ENUM_DIAGNOSTIC_SEVERITY_LEVEL", 2, "Warning", "Warning"},
    {"ENUM_DIAGNOSTIC_SEVERITY_LEVEL", 3, "Error", "Error"},
    {"ENUM_DIAGNOSTIC_SOURCE_TYPE", 1, "Injection", "Injection"},
    {"ENUM_DIAGNOSTIC_TIMESTAMP_SOURCE", 1, "TargetTimestamp", "Target timestamp"},
};
const size_t ssi_nsys_n_enum_rows = sizeof ssi_nsys_enum_rows / sizeof *ssi_nsys_enum_rows;
