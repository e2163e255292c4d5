// BlockingApp: endpoints that each hold their request's thread about 50 ms in a different blocking call, and an awaiting
// twin that holds none. The trace test loads them all at once and checks that the trace names each blocking call, the
// method that made it, its route, and its blocked milliseconds per request. Top-level statements on purpose: a user's
// app in the global namespace, found by its main module only.
const int HeldMs = 50;
// One thread per blocked request from the start: the test loads every endpoint at once, and a starved pool would only
// delay requests, not change what blocks them.
ThreadPool.SetMinThreads(32, 32);
var app = WebApplication.CreateBuilder(args).Build();
app.MapGet("/healthz", () => "ok");
app.MapGet("/sleep", () => Culprits.Sleep(HeldMs));
app.MapGet("/semaphore", () => Culprits.WaitSemaphore(HeldMs));
app.MapGet("/event", () => Culprits.WaitEvent(HeldMs));
app.MapGet("/fifo", () => Culprits.ReadFifo(HeldMs));
app.MapGet("/join", () => Culprits.Join(HeldMs));
app.MapGet("/monitor", () => Culprits.MonitorWait(HeldMs));
app.MapGet("/waithandle", () => Culprits.WaitOne(HeldMs));
app.MapGet("/usleep", () => Culprits.NativeSleep(HeldMs));
app.MapGet("/process", () => Culprits.WaitForProcess(HeldMs));
app.MapGet("/pipe", () => Culprits.ReadPipe(HeldMs));
app.MapGet("/http", (HttpRequest request) => Culprits.Send($"{request.Scheme}://{request.Host}", HeldMs));
app.MapGet("/awaiting", async () => await Culprits.AwaitAll(HeldMs, HeldMs, HeldMs));
// What /http calls: an awaiting wait, so it holds no thread of its own.
app.MapGet("/delayed", async (int ms) => { await Task.Delay(ms); return ms; });
// What each blocking call really took (the releaser runs late on a busy machine): the figure a trace must match.
app.MapGet("/blocked", () => Culprits.BlockedMs());
app.MapPost("/blocked/reset", Culprits.Reset);
app.Run();
