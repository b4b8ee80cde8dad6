{{- define "vloki.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "vloki.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "vloki.labels" -}}
{{ include "vloki.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* vloki's flags for the chosen mode. */}}
{{- define "vloki.args" -}}
- -server.http-listen-port={{ .Values.service.port }}
{{- if eq .Values.mode "single" }}
- -storage.path=/data
- -storage.retention={{ .Values.retention }}
{{- else }}
- -backend.insert-url={{ required "cluster mode needs backend.insertURL (the cluster's vlinsert)" .Values.backend.insertURL }}
- -backend.select-url={{ required "cluster mode needs backend.selectURL (the cluster's vlselect)" .Values.backend.selectURL }}
{{- end }}
- -frontend.results-cache-backend={{ .Values.resultsCache.backend }}
{{- if eq .Values.resultsCache.backend "memcached" }}
- -frontend.memcached-addresses={{ required "resultsCache.memcachedAddresses is empty" (join "," .Values.resultsCache.memcachedAddresses) }}
{{- else if eq .Values.resultsCache.backend "redis" }}
- -frontend.redis-address={{ required "resultsCache.redisAddress is empty" .Values.resultsCache.redisAddress }}
{{- end }}
{{- include "vloki.rulerArgs" . }}
{{- range .Values.extraArgs }}
- {{ . }}
{{- end }}
{{- end -}}

{{/* The ruler's flags: where rules and the WAL are, and the outputs. */}}
{{- define "vloki.rulerArgs" -}}
{{- $r := .Values.ruler }}
{{- if not $r.enabled }}
- -ruler.enable-api=false
{{- else }}
{{- if $r.rules }}
- -ruler.storage.local.directory=/etc/vloki/rules
- -ruler.storage.local.read-only=true
{{- else if $r.existingClaim }}
- -ruler.storage.local.directory=/var/lib/vloki-rules
{{- else if eq .Values.mode "cluster" }}
- -ruler.storage.local.directory=/var/lib/vloki-ruler/rules
- -ruler.storage.local.read-only=true
{{- end }}
{{- if not $r.evaluate }}
- -ruler.enable-evaluation=false
{{- end }}
{{- with $r.evaluationInterval }}
- -ruler.evaluation-interval={{ . }}
{{- end }}
{{- with $r.alertmanagerURL }}
- -ruler.alertmanager-url={{ . }}
{{- end }}
{{- with $r.externalURL }}
- -ruler.external-url={{ . }}
{{- end }}
{{- with $r.datasourceUID }}
- -ruler.datasource-uid={{ . }}
{{- end }}
{{- with $r.remoteWrite.url }}
- -ruler.remote-write.enabled=true
- -ruler.remote-write.url={{ . }}
{{- if eq $.Values.mode "cluster" }}
- -ruler.wal.dir=/var/lib/vloki-ruler/wal
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* The tenants of ruler.rules, sorted: the i-th has ConfigMap and volume rules-<i>. */}}
{{- define "vloki.ruleTenants" -}}
{{- keys .Values.ruler.rules | sortAlpha | toJson -}}
{{- end -}}

{{/* The ruler's volume mounts. */}}
{{- define "vloki.rulerMounts" -}}
{{- if .Values.ruler.enabled }}
{{- range $i, $tenant := include "vloki.ruleTenants" . | fromJsonArray }}
- name: rules-{{ $i }}
  mountPath: /etc/vloki/rules/{{ $tenant }}
  readOnly: true
{{- end }}
{{- if and (not .Values.ruler.rules) .Values.ruler.existingClaim }}
- name: rules
  mountPath: /var/lib/vloki-rules
{{- end }}
{{- if eq .Values.mode "cluster" }}
- name: ruler
  mountPath: /var/lib/vloki-ruler
{{- end }}
{{- end }}
{{- end -}}

{{/* The ruler's volumes. */}}
{{- define "vloki.rulerVolumes" -}}
{{- if .Values.ruler.enabled }}
{{- range $i, $tenant := include "vloki.ruleTenants" . | fromJsonArray }}
- name: rules-{{ $i }}
  configMap:
    name: {{ include "vloki.fullname" $ }}-rules-{{ $i }}
{{- end }}
{{- if and (not .Values.ruler.rules) .Values.ruler.existingClaim }}
- name: rules
  persistentVolumeClaim:
    claimName: {{ .Values.ruler.existingClaim }}
{{- end }}
{{- if eq .Values.mode "cluster" }}
- name: ruler
  emptyDir: {}
{{- end }}
{{- end }}
{{- end -}}

{{/* The vloki container, shared by the StatefulSet and the Deployment. */}}
{{- define "vloki.container" -}}
- name: vloki
  image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  args:
    {{- include "vloki.args" . | nindent 4 }}
  ports:
    - name: http
      containerPort: {{ .Values.service.port }}
      protocol: TCP
  readinessProbe:
    httpGet:
      path: /ready
      port: http
    periodSeconds: 5
    failureThreshold: 3
  livenessProbe:
    httpGet:
      path: /ready
      port: http
    initialDelaySeconds: 30
    periodSeconds: 10
    failureThreshold: 6
  resources:
    {{- toYaml .Values.resources | nindent 4 }}
  securityContext:
    allowPrivilegeEscalation: false
    readOnlyRootFilesystem: true
    capabilities:
      drop: [ALL]
  {{- $ruler := include "vloki.rulerMounts" . }}
  {{- if or (eq .Values.mode "single") $ruler }}
  volumeMounts:
    {{- if eq .Values.mode "single" }}
    - name: data
      mountPath: /data
    {{- end }}
    {{- with $ruler }}
    {{- . | nindent 4 }}
    {{- end }}
  {{- end }}
{{- end -}}

{{- define "vloki.podSpec" -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
terminationGracePeriodSeconds: 60
containers:
  {{- include "vloki.container" . | nindent 2 }}
{{- with include "vloki.rulerVolumes" . }}
volumes:
  {{- . | nindent 2 }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
