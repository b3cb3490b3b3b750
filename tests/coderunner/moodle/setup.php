<?php
// The few pieces of Moodle that CodeRunner's Jobe client (`classes/jobesandbox.php`, with its base
// class `classes/sandbox.php`) calls, written for Prüfstein's tests: settings, language strings,
// a temporary directory, a cache that never hits, and the exceptions it throws. Nothing here is
// Moodle's code; the client's own files are read from a CodeRunner checkout and never changed.

define('MOODLE_INTERNAL', true);

/** Moodle's global configuration: where `filelib.php` is and a temporary directory. */
global $CFG;
$CFG = new stdClass();
$CFG->libdir = __DIR__;
$CFG->tempdir = sys_get_temp_dir() . '/pruefstein-coderunner-' . getmypid();

/** The plugin settings a test sets (`jobe_host`, `jobe_apikey`, `enablegradecache`, ...). */
$PRUEFSTEIN_CONFIG = [];

/** Moodle's `get_config($plugin, $name)`: the setting, or false when it is not set. */
function get_config($plugin, $name = null) {
    global $PRUEFSTEIN_CONFIG;
    if ($name === null) {
        return (object) ($PRUEFSTEIN_CONFIG[$plugin] ?? []);
    }
    return $PRUEFSTEIN_CONFIG[$plugin][$name] ?? false;
}

/** Sets a plugin setting for [`get_config`]. */
function pruefstein_set_config($plugin, $name, $value) {
    global $PRUEFSTEIN_CONFIG;
    $PRUEFSTEIN_CONFIG[$plugin][$name] = $value;
}

/** The checkout's English language strings, read once. */
function pruefstein_strings() {
    static $strings = null;
    if ($strings === null) {
        $string = [];
        require(PRUEFSTEIN_CODERUNNER_DIR . '/lang/en/qtype_coderunner.php');
        $strings = $string;
    }
    return $strings;
}

/** Moodle's `get_string($id, $component, $a)`: the English string with `{$a}` or `{$a->name}` filled. */
function get_string($identifier, $component = '', $a = null) {
    $strings = $component === 'qtype_coderunner' ? pruefstein_strings() : [];
    $text = $strings[$identifier] ?? "[[$identifier]]";
    if (is_array($a) || is_object($a)) {
        foreach ((array) $a as $name => $value) {
            if (is_scalar($value)) {
                $text = str_replace('{$a->' . $name . '}', (string) $value, $text);
            }
        }
    } else if ($a !== null) {
        $text = str_replace('{$a}', (string) $a, $text);
    }
    return $text;
}

/** Moodle's `make_temp_directory($dir)`: creates `$CFG->tempdir/$dir`. */
function make_temp_directory($directory) {
    global $CFG;
    $path = $CFG->tempdir . '/' . $directory;
    if (!is_dir($path)) {
        mkdir($path, 0700, true);
    }
    return $path;
}

/** Moodle's application cache (`cache::make`): this one never holds anything, so every run goes to the server. */
class cache {
    public static function make($component, $area) {
        return new cache();
    }
    public function get($key) {
        return false;
    }
    public function set($key, $value) {
        return true;
    }
}

class moodle_exception extends Exception {
}

class coding_exception extends moodle_exception {
}

class qtype_coderunner_exception extends moodle_exception {
    public function __construct($errorcode, $a = null) {
        parent::__construct(get_string($errorcode, 'qtype_coderunner', $a));
    }
}
