// BlockingApp: endpoints that block a pool thread in known ways for a known time, and awaiting twins that do not.
// The trace tests load one endpoint at a time and check that the trace names the blocking call, the method that
// made it, and its blocked milliseconds per request. Top-level statements on purpose: a user's app in the global
// namespace, found by its main module only.
var app = WebApplication.CreateBuilder(args).Build();
app.MapGet("/healthz", () => "ok");
app.MapGet("/sleep", () => Culprits.Sleep(50));
app.MapGet("/semaphore", () => Culprits.WaitSemaphore(20));
app.MapGet("/event", () => Culprits.WaitEvent(30));
app.MapGet("/fifo", () => Culprits.ReadFifo(40));
app.MapGet("/awaiting", async () => await Culprits.AwaitAll(50, 20, 30));
// What each blocking call really took (the releaser runs late on a busy machine): the figure a trace must match.
app.MapGet("/blocked", () => Culprits.BlockedMs());
app.MapPost("/blocked/reset", Culprits.Reset);
app.Run();
