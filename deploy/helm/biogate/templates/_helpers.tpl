{{- define "biogate.name" -}}{{ .Chart.Name }}{{- end -}}
{{- define "biogate.fullname" -}}{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- define "biogate.labels" -}}
app.kubernetes.io/name: {{ include "biogate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}
{{- define "biogate.selector" -}}
app.kubernetes.io/name: {{ include "biogate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The pod template shared by the StatefulSet (sqlite) and the Deployment (mongodb). */}}
{{- define "biogate.pod" -}}
metadata:
  labels:
    {{- include "biogate.selector" . | nindent 4 }}
spec:
  securityContext:
    {{- toYaml .Values.podSecurityContext | nindent 4 }}
  # Above drain + grace: SIGTERM drains (/readyz 503), then in-flight requests finish, then the store closes.
  terminationGracePeriodSeconds: {{ add .Values.shutdown.drainS .Values.shutdown.graceS 15 }}
  containers:
    - name: biogate
      image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
      imagePullPolicy: {{ .Values.image.pullPolicy }}
      ports:
        - name: http
          containerPort: 8080
      env:
        - name: BIOGATE_PORT
          value: "8080"
        - name: BIOGATE_SHUTDOWN_DRAIN_S
          value: {{ .Values.shutdown.drainS | quote }}
        - name: BIOGATE_SHUTDOWN_GRACE_S
          value: {{ .Values.shutdown.graceS | quote }}
        # The pod's name: stable node ids in metrics and leases.
        - name: BIOGATE_NODE_ID
          valueFrom:
            fieldRef:
              fieldPath: metadata.name
        {{- if eq .Values.store.kind "sqlite" }}
        - name: BIOGATE_STORE
          value: sqlite:/data/biogate.db
        {{- else }}
        - name: BIOGATE_STORE
          valueFrom:
            secretKeyRef:
              name: {{ required "store.mongodb.urlSecret: the Secret holding the mongodb:// URL" .Values.store.mongodb.urlSecret }}
              key: {{ .Values.store.mongodb.urlSecretKey }}
        {{- end }}
        {{- with .Values.secrets }}
        {{- if and .existingSecret .adminTokenKey }}
        - name: BIOGATE_ADMIN_TOKEN
          valueFrom:
            secretKeyRef:
              name: {{ .existingSecret }}
              key: {{ .adminTokenKey }}
        {{- end }}
        {{- if and .existingSecret .metricsTokenKey }}
        - name: BIOGATE_METRICS_TOKEN
          valueFrom:
            secretKeyRef:
              name: {{ .existingSecret }}
              key: {{ .metricsTokenKey }}
        {{- end }}
        {{- end }}
        {{- range $name, $value := .Values.env }}
        - name: {{ $name }}
          value: {{ $value | quote }}
        {{- end }}
      readinessProbe:
        httpGet:
          path: /readyz
          port: http
        periodSeconds: 5
        failureThreshold: 2
      livenessProbe:
        httpGet:
          path: /healthz
          port: http
        periodSeconds: 15
        failureThreshold: 4
      resources:
        {{- toYaml .Values.resources | nindent 8 }}
      {{- if eq .Values.store.kind "sqlite" }}
      volumeMounts:
        - name: data
          mountPath: /data
      {{- end }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
