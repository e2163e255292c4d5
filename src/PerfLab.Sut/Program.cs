using Microsoft.AspNetCore.Connections;
using PerfLab.Sut.Contention;
using PerfLab.Sut.Data;
using PerfLab.Sut.Delays;
using PerfLab.Sut.Diagnostics;
using PerfLab.Sut.Hosting;
using PerfLab.Sut.Info;
using PerfLab.Sut.Logging;
using PerfLab.Sut.Platform;
using PerfLab.Sut.Serialization;
using PerfLab.Sut.Uploads;

// Content root is the app's own folder, so appsettings.json applies whatever folder perflab starts it from.
var builder = WebApplication.CreateBuilder(new WebApplicationOptions { Args = args, ContentRootPath = AppContext.BaseDirectory });

EffectiveVariants variants;
try
{
    variants = builder.AddVariants();
    builder.AddRequestVariants(variants);   // Sut:PerRequestVariants: a request's X-PerfLab-Variant, with the run's token
}
catch (InvalidVariantException ex)
{
    Console.Error.WriteLine($"perflab-sut: {ex.Message}");
    return 2;
}

builder.AddKestrelLimits();   // Kestrel:Limits:Http2:* and Kestrel:EndpointDefaults:Protocols (h2c) from configuration
builder.AddSutLogging(variants);
// The host logs a failed start with a stack trace before rethrowing; the one failure a user causes (a port in use)
// is reported below in one line, and anything else still ends the process with its exception.
builder.Logging.AddFilter("Microsoft.Extensions.Hosting.Internal.Host", LogLevel.None);
builder.AddAdventureWorks(variants);
builder.AddSerialization(variants);
builder.Services.AddProblemDetails();
builder.Services.AddExceptionHandler<DatabaseUnavailableHandler>();

var app = builder.Build();
app.UseExceptionHandler();
app.UseStatusCodePages();
app.UseDiagnosticsAccess(app.Configuration);   // Diagnostics:Token: /diagnostics/* ask it on another host's address
app.UseRequestVariants(variants, app.Configuration);   // before anything that reads the request's switches
app.UseExtraWork(variants);   // Sut:ExtraWorkMicroseconds: a known slowdown, off by default

app.MapControllers();   // Orders/, Products/, Platform/ (MVC, so the Serializer variant applies)
app.MapDelays();        // seeds 001, 003, 004
app.MapCapacity();      // a known capacity (K slots of S ms) for the capacity search
app.MapContention();    // a known σ and κ for the scalability law's fit
app.MapInfo();
app.MapPlatform();
app.MapUploads();       // seed 002's HTTP/2 upload
app.MapCulprits();      // known culprits for trace tests
app.AnnounceReadiness();

try
{
    app.Run();
}
catch (IOException ex) when (ex.InnerException is System.Net.Sockets.SocketException or AddressInUseException)
{
    // Kestrel's bind failure: one line naming the address, not a stack trace.
    Console.Error.WriteLine($"perflab-sut: {ex.Message} ({ex.InnerException!.Message}). Choose another port with "
        + "--urls, or stop what listens there.");
    return 3;
}
return 0;

/// <summary>The entry point, visible to the tests that host the app in-process.</summary>
public partial class Program;
