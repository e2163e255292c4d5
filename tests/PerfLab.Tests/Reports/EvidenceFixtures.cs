using PerfLab.Results;

namespace PerfLab.Tests.Reports;

// The evidence a traced run leaves, added to the sample run: the serializer experiment traced for every
// variant (CPU by component, top stacks for the flame graphs, the database client's stats per run), sync-over-async
// traced for two of its three variants (a blocking wait and a contended lock with their stacks, a finding with a place).
internal static class EvidenceFixtures
{
    private static readonly string[] _kestrel =
    [
        "System.Threading.ThreadPoolWorkQueue.Dispatch",
        "Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol.ProcessRequests",
        "Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke",
    ];

    public static ExperimentResult Serializer(ExperimentResult e) => e with
    {
        Evidence =
        [
            Traced("newtonsoft", 1, 6688, 23480, [0.512, 1.431, 0.402, 0.611, 0.048, 0.297, 0.211], database: 1.874, gcPause: 0.041, gcCpu: 0.146,
                SerializerStacks("Newtonsoft.Json.JsonSerializer.Serialize", 5200)),
            Traced("system-text-json", 1, 8102, 20110, [0.355, 0.802, 0.398, 0.604, 0.047, 0.290, 0.205], database: 1.702, gcPause: 0.029, gcCpu: 0.117,
                SerializerStacks("System.Text.Json.JsonSerializer.Serialize", 3100)),
            Traced("system-text-json-sourcegen", 1, 8560, 19640, [0.331, 0.655, 0.401, 0.598, 0.046, 0.288, 0.207], database: 1.688, gcPause: 0.027, gcCpu: 0.112,
                SerializerStacks("PerfLab.Sut.Serialization.OrdersJsonContext.OrderSerializeHandler", 2500)),
        ],
        Runs = [.. e.Runs.Select(r => r.Status != RunStatus.Ok ? r : r with
        {
            Database = new DatabaseClientStats
            {
                CommandsPerRequest = 1.5,
                CommandMsPerRequest = (r.Variant == "newtonsoft" ? 1.8 : 1.6) + (r.Repetition * 0.1),
                ConnectionsBusyMean = 3 + r.Repetition,
                ConnectionsIdleMean = 7 - r.Repetition,
                PendingConnectionRequestsMean = 0.25 * r.Repetition,
            },
        })],
    };

    public static ExperimentResult SyncOverAsync(ExperimentResult e) => e with
    {
        Evidence =
        [
            Traced("async", 2, 4150, 3980, [0.081, 0.214, 0.152, 0.331, 0.021, 0.108, 0.094], database: 201.3, gcPause: 0.004, gcCpu: 0.061,
                [new([.. _kestrel, "PerfLab.Sut.Products.ProductsApi.GetProductsAsync", "Npgsql.NpgsqlCommand.ExecuteReaderAsync"], 900),
                 new([.. _kestrel, "PerfLab.Sut.Products.ProductsApi.GetProductsAsync", "System.Text.Json.JsonSerializer.Serialize"], 700)]),
            Traced("sync-over-async", 2, 1230, 2210, [0.095, 0.22, 0.163, 0.352, 0.024, 0.121, 0.88], database: 203.9, gcPause: 0.003, gcCpu: 0.043,
                [new([.. _kestrel, "PerfLab.Sut.Products.ProductsApi.GetProductsSyncOverAsync", "System.Threading.Tasks.Task.Wait"], 600),
                 new([.. _kestrel, "PerfLab.Sut.Products.ProductsApi.GetProductsSyncOverAsync", "System.Text.Json.JsonSerializer.Serialize"], 500),
                 new(["System.Threading.PortableThreadPool+HillClimbing.Update"], 400)]) with
            {
                LockBlockedMsPerRequest = 12.6,
                BlockingWaitMsPerRequest = 1187.4,
                BlockingWaits =
                [
                    new CallSite("PerfLab.Sut.Products.ProductsApi.GetProductsSyncOverAsync", 1230, 1460502.0,
                        [.. _kestrel, "PerfLab.Sut.Products.ProductsApi.GetProductsSyncOverAsync", "System.Threading.Tasks.Task.Wait"]),
                ],
                Contention =
                [
                    new CallSite("Microsoft.Extensions.Logging.Console.ConsoleLoggerProcessor.EnqueueMessage", 312, 15498.0,
                        [.. _kestrel, "Microsoft.Extensions.Logging.Logger.Log", "Microsoft.Extensions.Logging.Console.ConsoleLoggerProcessor.EnqueueMessage"]),
                ],
            },
        ],
        Findings =
        [
            .. e.Findings,
            new Finding("sync-over-async", FindingKind.SyncOverAsync,
                "threads waited 1187.4 ms per request in Task.Wait",
                "await the call instead of Task.Wait() (seed 004)",
                "1230 blocking waits in the trace of repetition 2",
                Place: "PerfLab.Sut.Products.ProductsApi.GetProductsSyncOverAsync", Strength: EvidenceStrength.Strong),
        ],
    };

    private static VariantEvidence Traced(
        string variant, int repetition, long requests, long cpuSamples, double[] cpu, double database, double gcPause, double gcCpu,
        IReadOnlyList<StackSample> stacks) => new()
    {
        Variant = variant,
        Repetition = repetition,
        TracedSeconds = 20,
        Requests = requests,
        CpuSamples = cpuSamples,
        CpuMsPerRequest = new Dictionary<string, double>
        {
            ["Gc"] = cpu[0], ["Json"] = cpu[1], ["Database"] = cpu[2], ["AspNetCore"] = cpu[3], ["Logging"] = cpu[4], ["App"] = cpu[5], ["Other"] = cpu[6],
        },
        DatabaseMsPerRequest = database,
        LockBlockedMsPerRequest = 0,
        BlockingWaitMsPerRequest = 0,
        GcPauseShare = gcPause,
        GcCpuShare = gcCpu,
        TopStacks = stacks,
        SpeedscopeFile = $"traces/{variant}-{repetition}.speedscope.json",
    };

    private static IReadOnlyList<StackSample> SerializerStacks(string serialize, long serializeSamples) =>
    [
        new([.. _kestrel, "PerfLab.Sut.Orders.OrdersApi.GetOrders", serialize], serializeSamples),
        new([.. _kestrel, "PerfLab.Sut.Orders.OrdersApi.GetOrders", "Npgsql.NpgsqlDataReader.Read"], 2100),
        new([.. _kestrel, "PerfLab.Sut.Orders.OrdersApi.GetOrder", serialize], serializeSamples / 4),
        new(["coreclr!WKS::gc_heap::garbage_collect"], 1800),
    ];
}
