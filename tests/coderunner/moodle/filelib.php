<?php
// Moodle's `curl` class as CodeRunner's Jobe client uses it, written for Prüfstein's tests over
// PHP's HTTP streams (no curl extension needed): headers set once stay set on the object,
// `get`, `post` and `put` with a raw body return the response body (or the error text when no
// answer came) and leave the status in `$this->info['http_code']`. Redirects are not followed,
// as Moodle's own class does not follow them by itself.

class curl {
    /** @var array what the last request's transfer says: `http_code` (0 when no answer came) */
    public $info = [];
    /** @var string the last request's error, empty when an answer came */
    public $error = '';
    private $headers = [];
    private $options = [];

    public function __construct($settings = []) {
    }

    public function setopt($options = []) {
        foreach ($options as $name => $value) {
            $this->options[$name] = $value;
        }
    }

    public function setHeader($header) {
        foreach ((array) $header as $line) {
            $this->headers[] = $line;
        }
    }

    public function resetHeader() {
        $this->headers = [];
    }

    public function get($url, $params = [], $options = []) {
        if (!empty($params)) {
            $url .= (strpos($url, '?') !== false ? '&' : '?') . http_build_query($params, '', '&');
        }
        return $this->request('GET', $url, null);
    }

    public function post($url, $params = '', $options = []) {
        return $this->request('POST', $url, is_array($params) ? http_build_query($params) : $params);
    }

    public function put($url, $params = [], $options = []) {
        return $this->request('PUT', $url, is_array($params) ? http_build_query($params) : $params);
    }

    private function request($method, $url, $body) {
        $this->info = [];
        $this->error = '';
        $http = [
            'method' => $method,
            'header' => implode("\r\n", $this->headers),
            'ignore_errors' => true,
            'follow_location' => 0,
            'timeout' => 120,
            'protocol_version' => 1.1,
        ];
        if ($body !== null) {
            $http['content'] = $body;
        }
        $context = stream_context_create(['http' => $http]);
        $response = @file_get_contents($url, false, $context);
        $status = 0;
        foreach ($http_response_header ?? [] as $line) {
            if (preg_match('#^HTTP/\S+\s+(\d{3})#', $line, $matches)) {
                $status = (int) $matches[1];
            }
        }
        $this->info = ['http_code' => $status];
        if ($response === false) {
            $this->error = error_get_last()['message'] ?? 'the request failed';
            return $this->error;
        }
        return $response;
    }
}
