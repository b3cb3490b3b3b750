<?php
// Drives CodeRunner's own, unmodified Jobe client against a Jobe server, for Prüfstein's tests.
//
// Usage: php run.php CODERUNNER_DIR < request.json
//
// CODERUNNER_DIR is a checkout of moodle-qtype_coderunner; its `classes/sandbox.php`,
// `classes/constants.php`, `classes/jobesandbox.php` and `lang/en/qtype_coderunner.php` are loaded
// as they are, over the Moodle functions in `moodle/` (ours). The request names the server, the
// key and the calls:
//
//   {"jobe_host": "127.0.0.1:8080", "api_key": "pst_…",
//    "calls": [{"call": "languages"},
//              {"call": "execute", "sourcecode": "…", "language": "pruefstein",
//               "files_base64": {"consumer.wasm": "AGFzbQ…"}, "params": {"exercise": "…"}}]}
//
// It prints one JSON array, an answer per call: for `languages` what `get_languages()` returns; for
// `execute` the run object `execute()` returns (error, result, output, stderr, cmpinfo) and
// `shown`: what a question whose grader is the template grader shows for it (a sandbox error's
// text, the "bad output from grader" text of a run that did not succeed, or the combinator
// JSON's fraction and prologue).

if ($argc < 2 || !is_dir($argv[1])) {
    fwrite(STDERR, "usage: php run.php CODERUNNER_DIR < request.json\n");
    exit(2);
}
define('PRUEFSTEIN_CODERUNNER_DIR', rtrim($argv[1], '/'));
require_once(__DIR__ . '/moodle/setup.php');
require_once(PRUEFSTEIN_CODERUNNER_DIR . '/classes/constants.php');
require_once(PRUEFSTEIN_CODERUNNER_DIR . '/classes/sandbox.php');
require_once(PRUEFSTEIN_CODERUNNER_DIR . '/classes/jobesandbox.php');

$request = json_decode(stream_get_contents(STDIN), true);
if (!is_array($request)) {
    fwrite(STDERR, "run.php: the request on stdin is not a JSON object\n");
    exit(2);
}
pruefstein_set_config('qtype_coderunner', 'jobe_host', $request['jobe_host']);
pruefstein_set_config('qtype_coderunner', 'jobe_apikey', $request['api_key'] ?? '');
pruefstein_set_config('qtype_coderunner', 'jobesandbox_enabled', 1);
pruefstein_set_config('qtype_coderunner', 'enablegradecache', 0);

/** What a template-graded question shows for `$run`. */
function pruefstein_shown($run) {
    if ($run->error !== qtype_coderunner_sandbox::OK) {
        return ['kind' => 'sandbox-error', 'text' => qtype_coderunner_sandbox::error_string($run)];
    }
    if ($run->result !== qtype_coderunner_sandbox::RESULT_SUCCESS) {
        $output = "\nRun result: " . qtype_coderunner_sandbox::result_string($run->result)
            . "\nOutput: " . $run->cmpinfo . "\n" . $run->output . "\n" . $run->stderr;
        return ['kind' => 'bad-grader-output',
                'text' => get_string('brokentemplategrader', 'qtype_coderunner', ['output' => $output])];
    }
    $result = json_decode($run->output);
    if ($result === null) {
        return ['kind' => 'bad-json', 'text' => get_string('badjson', 'qtype_coderunner', ['output' => $run->output])];
    }
    return ['kind' => 'graded', 'fraction' => $result->fraction ?? null,
            'prologuehtml' => $result->prologuehtml ?? null, 'testresults' => $result->testresults ?? null];
}

$answers = [];
foreach ($request['calls'] as $call) {
    $sandbox = new qtype_coderunner_jobesandbox();
    if ($call['call'] === 'languages') {
        $answers[] = (array) $sandbox->get_languages();
        continue;
    }
    $files = null;
    if (isset($call['files_base64'])) {
        $files = [];
        foreach ($call['files_base64'] as $name => $contents) {
            $files[$name] = base64_decode($contents);
        }
    }
    $run = $sandbox->execute(
        $call['sourcecode'],
        $call['language'],
        $call['input'] ?? null,
        $files,
        $call['params'] ?? null,
        false
    );
    $answer = (array) $run;
    unset($answer['sandboxinfo']);
    $answer['shown'] = pruefstein_shown($run);
    $answers[] = $answer;
}
echo json_encode($answers, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE), "\n";
