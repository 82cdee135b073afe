/*
 * cmd_doctor.c — `stepscope doctor`: is this machine ready to train fast?
 *
 * Runs every check of the table in doctor_checks.c (driver, CUDA and cuDNN libraries,
 * torch and its defaults, CUDA_LAUNCH_BLOCKING, open-file limit, TCP buffers, CPU, GPU link,
 * and with --data the data folder's storage) and prints one line per check, or one JSON
 * object. Exit status 1 when a check failed, so `stepscope doctor && python train.py` stops
 * on a machine that cannot train; warnings inform and do not fail. docs/doctor.md.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "doctor.h"
#include "json_out.h"
#include "text_esc.h"

static const char doctor_usage[] =
    "usage: stepscope doctor [--data DIR] [--multi-node] [--format text|json]\n"
    "\n"
    "Checks the machine a training job runs on: NVIDIA driver, CUDA runtime, cuDNN,\n"
    "python3's torch (version, CUDA/cuDNN build, cudnn.benchmark and TF32 defaults),\n"
    "CUDA_LAUNCH_BLOCKING, ulimit -n, TCP buffers, CPU cores and governor, GPU persistence\n"
    "mode, clocks and PCIe link (nvidia-smi). Each check says pass, warn, fail or skip,\n"
    "and for warn and fail the fix.\n"
    "\n"
    "  -d, --data DIR     also check the data folder: filesystem, free space, rotational\n"
    "                     disk, and a short read test (at most 256 MiB, 3 s)\n"
    "  -m, --multi-node   the job spans several machines: check TCP buffers (also\n"
    "                     detected from WORLD_SIZE > LOCAL_WORLD_SIZE or SLURM_NNODES > 1)\n"
    "  -f, --format FMT   text (default) or json: one JSON object (schema in\n"
    "                     docs/doctor.md); --json is the same as --format json\n"
    "  -h, --help         this text\n"
    "\n"
    "Exit status: 0 no check failed (warnings may remain), 1 a check failed or DIR\n"
    "cannot be read, 2 usage error.\n";

struct doctor_opts {
    const char *data_dir;
    int multi_node, json;
};

static int parse_doctor_args(int argc, char **argv, struct doctor_opts *o)
{
    static const struct option longopts[] = {{"data", required_argument, NULL, 'd'},
                                             {"multi-node", no_argument, NULL, 'm'},
                                             {"format", required_argument, NULL, 'f'},
                                             {"json", no_argument, NULL, 'J'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    cli_opt_reset();
    for (int c; (c = cli_getopt("doctor", argc, argv, "d:mf:h", longopts)) != -1;) {
        if (c == 'h') {
            fputs(doctor_usage, stdout);
            return -1; /* --help: done, success */
        }
        if (c == '?') return CLI_EXIT_USAGE;
        if (c == 'd') o->data_dir = optarg;
        if (c == 'm') o->multi_node = 1;
        if (c == 'J') o->json = 1;
        if (c == 'f' && cli_parse_text_json("doctor", optarg, &o->json) != 0)
            return CLI_EXIT_USAGE;
    }
    if (optind < argc) return cli_usage_error("doctor", "unexpected argument '%s'", argv[optind]);
    if (o->data_dir && !*o->data_dir) return cli_usage_error("doctor", "--data needs a folder");
    return 0;
}

/* The data folder must exist and be a readable folder before any check looks at it. */
static int data_dir_ok(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        cli_error("doctor", dir, "cannot open the data folder: %s", strerror(errno));
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        cli_error("doctor", dir, "the data folder is not a folder");
        return 0;
    }
    return 1;
}

static void print_text(const struct ssa_env_verdict *res, const int counts[SSA_ENV_N_STATUS])
{
    char value[SSA_ENV_VALUE_MAX * 2], fix[SSA_ENV_FIX_MAX * 2];
    printf("%-4s  %-15s  %s\n", "STAT", "CHECK", "VALUE  [fix]");
    for (size_t i = 0; i < dr_n_checks; i++) {
        text_escape_to(value, sizeof value, res[i].value); /* values quote outside programs */
        printf("%-4s  %-15s  %s", ssa_env_status_name(res[i].status), dr_check_id(&dr_checks[i]),
               value);
        if (res[i].fix[0]) printf("  [fix: %s]", text_escape_to(fix, sizeof fix, res[i].fix));
        printf("\n");
    }
    printf("%d pass, %d warn, %d fail, %d skip\n", counts[SSA_ENV_PASS], counts[SSA_ENV_WARN],
           counts[SSA_ENV_FAIL], counts[SSA_ENV_SKIP]);
}

static void print_json(const struct doctor_opts *o, const struct ssa_env_verdict *res,
                       const int counts[SSA_ENV_N_STATUS])
{
    struct json_out j;
    json_init(&j, stdout, 1);
    json_begin_object(&j);
    json_kv_string(&j, "schema", "stepscope.doctor/1");
    json_kv_string(&j, "data_dir", o->data_dir);
    json_kv_bool(&j, "multi_node", o->multi_node);
    json_key(&j, "summary");
    json_begin_object(&j);
    for (int s = 0; s < SSA_ENV_N_STATUS; s++)
        json_kv_u64(&j, ssa_env_status_name(s), (uint64_t)counts[s]);
    json_end_object(&j);
    json_key(&j, "checks");
    json_begin_array(&j);
    for (size_t i = 0; i < dr_n_checks; i++) {
        json_begin_object(&j);
        json_kv_string(&j, "id", dr_check_id(&dr_checks[i]));
        json_kv_string(&j, "title", dr_check_title(&dr_checks[i]));
        json_kv_string(&j, "status", ssa_env_status_name(res[i].status));
        json_kv_string(&j, "value", res[i].value);
        json_kv_string(&j, "fix", res[i].fix[0] ? res[i].fix : NULL);
        json_end_object(&j);
    }
    json_end_array(&j);
    json_end_object(&j);
    json_finish(&j);
}

int cmd_doctor(int argc, char **argv)
{
    struct doctor_opts o;
    int rc = parse_doctor_args(argc, argv, &o);
    if (rc == -1) return cli_finish_stdout("doctor");
    if (rc) return rc;
    if (o.data_dir && !data_dir_ok(o.data_dir)) return CLI_EXIT_FAIL;
    static struct ssa_env_verdict res[DR_MAX_CHECKS];
    static struct dr_ctx ctx;
    ctx.data_dir = o.data_dir;
    ctx.multi_node = o.multi_node;
    int counts[SSA_ENV_N_STATUS] = {0};
    for (size_t i = 0; i < dr_n_checks; i++) {
        dr_check_run(&dr_checks[i], &ctx, &res[i]);
        counts[res[i].status]++;
    }
    if (o.json)
        print_json(&o, res, counts);
    else
        print_text(res, counts);
    int out = cli_finish_stdout("doctor");
    return out != CLI_EXIT_OK ? out : counts[SSA_ENV_FAIL] ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
