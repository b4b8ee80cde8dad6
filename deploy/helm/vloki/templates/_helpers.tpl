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
{{- range .Values.extraArgs }}
- {{ . }}
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
  {{- if eq .Values.mode "single" }}
  volumeMounts:
    - name: data
      mountPath: /data
  {{- end }}
{{- end -}}

{{- define "vloki.podSpec" -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
terminationGracePeriodSeconds: 60
containers:
  {{- include "vloki.container" . | nindent 2 }}
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
